import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';
import type { IssuanceContext, IssuanceEvent } from './issuance-types.ts';

export type { IssuanceContext, IssuanceEvent, IssuanceGrant } from './issuance-types.ts';

export const TX_CODE_ATTEMPTS = 5;

const before = (context: IssuanceContext, at: number) => at < context.expiresAt;

/** What an offer answers before its token, whether or not the wallet has fetched it yet. */
const redeemable = {
  'issuance.tx_code_rejected': [
    { guard: 'lastTxCodeAttempt', target: 'expired', actions: ['countTxCodeFailure', 'recordTxCodeBurned'] },
    { actions: 'countTxCodeFailure' },
  ],
  'issuance.token_issued': { target: 'token_issued', guard: 'offerLive', actions: 'recordToken' },
  'issuance.expired': { target: 'expired', actions: 'recordExpiry' },
  'issuance.authorization_requested': {
    target: 'authorization_requested',
    guard: 'offersAuthorizationCode',
    actions: 'recordAuthorizationRequest',
  },
} as const;

/**
 * One credential offer of the OID4VCI issuer and what the wallet did with it (decisions section 8),
 * stream `issuance:<offer_id>`: offered -> (offer fetched) -> token -> credential (directly, or
 * deferred then collected) -> notified, or
 * expired (lapsed, or the pre-authorized code burned by wrong transaction codes). Secrets arrive as
 * hashes only. Time comes inside the events.
 */
/** The arguments xstate gives a guard of this machine. */
type IssuanceGuardArgs = { context: IssuanceContext; event: IssuanceEvent };
type E<T extends IssuanceEvent['type']> = Extract<IssuanceEvent, { type: T }>;

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const issuanceGuards = {
  /** An offer made for the authorization code grant (its issuer_state) may be requested by PAR. */
  offersAuthorizationCode: ({ context }: IssuanceGuardArgs) =>
    context.grant === 'authorization_code' && context.par === undefined,
  /** The pushed request is used once, before it lapses. */
  requestUriLive: ({ context, event }: IssuanceGuardArgs) =>
    context.par !== undefined && event.at < context.par.requestExpiresAt,
  /** The code lives 60 s. */
  codeLive: ({ context, event }: IssuanceGuardArgs) =>
    context.authCodeExpiresAt !== undefined && event.at < context.authCodeExpiresAt,
  /** Tokens are issued only for a live offer. */
  offerLive: ({ context, event }: IssuanceGuardArgs) => before(context, event.at),
  /** The fifth wrong transaction code burns the pre-authorized code. */
  lastTxCodeAttempt: ({ context }: IssuanceGuardArgs) => context.txCodeFailures + 1 >= TX_CODE_ATTEMPTS,
  /** Once `credential_accepted` came, `credential_failure` is refused, even after a `credential_deleted`. */
  notificationAllowed: ({ context, event }: IssuanceGuardArgs) =>
    event.type === 'issuance.notified' &&
    !(context.credentialAccepted === true && event.event === 'credential_failure'),
  /** Nonce challenges count until the issuance has expired. */
  notExpired: ({ context }: IssuanceGuardArgs) => context.expiredReason === undefined,
  /** Only the first wallet exchange that names itself is kept. */
  notCorrelated: ({ context }: IssuanceGuardArgs) => context.walletExchange === undefined,
  /** An offer configured for deferral answers with a transaction id, any other with credentials. */
  issuesNow: ({ context }: IssuanceGuardArgs) => !context.deferred,
  defers: ({ context }: IssuanceGuardArgs) => context.deferred,
  /** A deferred credential is collected once it is ready. */
  deferredReady: ({ context, event }: IssuanceGuardArgs) => event.at >= (context.readyAt ?? Infinity),
};

/** The machine's context updates: pure, named, importable on their own (the event carries its time). */
export const issuanceUpdates = {
  recordOffer: (_: IssuanceContext, event: E<'issuance.offered'>) => ({
    grant: event.grant,
    configurationIds: event.configuration_ids,
    codeHash: event.code_hash,
    txCodeHash: event.tx_code_hash,
    issuerStateHash: event.issuer_state_hash,
    expiresAt: event.expires_at,
    user: event.user,
    deferred: event.deferred === true,
  }),
  recordOfferFetched: () => ({ offerFetched: true }),
  countTxCodeFailure: (context: IssuanceContext) => ({ txCodeFailures: context.txCodeFailures + 1 }),
  recordTxCodeBurned: () => ({ expiredReason: 'tx_code_burned' }),
  recordExpiry: (_: IssuanceContext, event: E<'issuance.expired'>) => ({ expiredReason: event.reason }),
  recordAuthorizationRequest: (context: IssuanceContext, event: E<'issuance.authorization_requested'>) => ({
    grant: 'authorization_code' as const,
    configurationIds: event.configuration_ids,
    clientId: event.client_id,
    expiresAt: event.expires_at ?? context.expiresAt,
    par: {
      clientId: event.client_id,
      redirectUri: event.redirect_uri,
      codeChallenge: event.code_challenge,
      authorizationDetails: event.authorization_details,
      state: event.state,
      dpopJkt: event.dpop_jkt,
      requestUriHash: event.request_uri_hash,
      requestExpiresAt: event.request_expires_at,
      attested: event.attested === true,
    },
  }),
  recordAuthorizationStarted: (_: IssuanceContext, event: E<'issuance.authorization_started'>) => ({
    loginInteractionId: event.interaction_id,
  }),
  recordCode: (_: IssuanceContext, event: E<'issuance.code_issued'>) => ({
    authCodeHash: event.code_hash,
    authCodeExpiresAt: event.code_expires_at,
    user: event.sub,
  }),
  recordDecline: () => ({ expiredReason: 'declined' }),
  recordToken: (_: IssuanceContext, event: E<'issuance.token_issued'>) => ({
    tokenHash: event.token_hash,
    tokenType: event.token_type,
    dpopJkt: event.dpop_jkt,
    clientId: event.client_id,
    scope: event.scope,
    attested: event.attested === true,
    challengeUsed: event.challenge_used === true,
  }),
  /** A code is spent once: its hash is forgotten with the token. */
  spendCode: () => ({ authCodeHash: undefined }),
  recordCredential: (_: IssuanceContext, event: E<'issuance.credential_issued'>) => ({
    configurationId: event.configuration_id,
    proofCount: event.proof_count,
    holderJkts: event.holder_jkts,
    notificationIdHash: event.notification_id_hash,
    ...(event.interaction_id ? { interactionId: event.interaction_id } : {}),
    ...(event.key_attestation ? { keyAttestation: event.key_attestation } : {}),
    requestEncrypted: event.request_encrypted === true,
    responseEncrypted: event.response_encrypted === true,
  }),
  recordDeferral: (_: IssuanceContext, event: E<'issuance.deferred'>) => ({
    configurationId: event.configuration_id,
    proofCount: event.proof_count,
    holderJkts: event.holder_jkts,
    holderJwks: event.holder_jwks,
    transactionIdHash: event.transaction_id_hash,
    readyAt: event.ready_at,
  }),
  recordCollection: (_: IssuanceContext, event: E<'issuance.deferred_collected'>) => ({
    notificationIdHash: event.notification_id_hash,
    transactionIdHash: undefined,
  }),
  recordNotification: (context: IssuanceContext, event: E<'issuance.notified'>) => ({
    notificationEvent: event.event,
    credentialAccepted: context.credentialAccepted === true || event.event === 'credential_accepted',
    ...(event.interaction_id ? { interactionId: event.interaction_id } : {}),
  }),
  countNonceChallenge: (context: IssuanceContext) => ({ dpopNonceChallenges: context.dpopNonceChallenges + 1 }),
  recordCorrelation: (_: IssuanceContext, event: E<'issuance.correlated'>) => ({ walletExchange: event.stream }),
} satisfies Record<string, ContextUpdate<IssuanceContext>>;

export const issuanceMachine = setup({
  types: { context: {} as IssuanceContext, events: {} as IssuanceEvent },
  guards: issuanceGuards,
  actions: updateActions<IssuanceContext, IssuanceEvent, typeof issuanceUpdates>(issuanceUpdates),
}).createMachine({
  id: 'issuance',
  initial: 'new',
  context: {
    configurationIds: [],
    txCodeFailures: 0,
    expiresAt: 0,
    offerFetched: false,
    holderJkts: [],
    deferred: false,
    holderJwks: [],
    dpopNonceChallenges: 0,
  },
  // Nonce challenges are counted whatever the state, until the issuance has expired.
  on: {
    'issuance.nonce_challenged': {
      guard: 'notExpired',
      actions: 'countNonceChallenge',
    },
    // Correlation (docs/debugging.md): the first wallet exchange that names itself is kept.
    'issuance.correlated': {
      guard: 'notCorrelated',
      actions: 'recordCorrelation',
    },
  },
  states: {
    new: {
      description: 'No offer yet.',
      on: {
        'issuance.authorization_requested': {
          target: 'authorization_requested',
          actions: 'recordAuthorizationRequest',
        },
        'issuance.offered': {
          target: 'offered',
          actions: 'recordOffer',
        },
      },
    },
    offered: {
      description:
        'Offer created (OpenID4VCI 1.0 §4.1): pre-authorized code (with tx_code) or issuer_state; decisions §8.',
      on: {
        'issuance.offer_fetched': {
          target: 'offer_fetched',
          guard: 'offerLive',
          actions: 'recordOfferFetched',
        },
        ...redeemable,
      },
    },
    offer_fetched: {
      description: 'The wallet fetched the offer by reference (OpenID4VCI 1.0 §4.1.3).',
      on: {
        'issuance.offer_fetched': { guard: 'offerLive' },
        ...redeemable,
      },
    },
    /** PAR accepted; its request_uri waits for the authorization endpoint. */
    authorization_requested: {
      description: 'A pushed authorization request named this offer (RFC 9126, OpenID4VCI 1.0 §5.1.4).',
      on: {
        'issuance.authorization_started': {
          target: 'authorizing',
          guard: 'requestUriLive',
          actions: 'recordAuthorizationStarted',
        },
        'issuance.expired': { target: 'expired', actions: 'recordExpiry' },
      },
    },
    /** The person signs in and consents (or declines). */
    authorizing: {
      description: 'The person is at the authorization endpoint (OpenID4VCI 1.0 §5.1).',
      on: {
        'issuance.code_issued': {
          target: 'code_issued',
          actions: 'recordCode',
        },
        'issuance.authorization_declined': { target: 'expired', actions: 'recordDecline' },
      },
    },
    /** A code waits for the token endpoint: once, within 60 s. */
    code_issued: {
      description: 'An authorization code went back to the wallet (RFC 6749 §4.1.2).',
      on: {
        'issuance.token_issued': {
          target: 'token_issued',
          guard: 'codeLive',
          actions: ['recordToken', 'spendCode'],
        },
        'issuance.expired': { target: 'expired', actions: 'recordExpiry' },
      },
    },
    token_issued: {
      description: 'The code was spent for an access token (OpenID4VCI 1.0 §6).',
      on: {
        'issuance.credential_issued': {
          target: 'credential_issued',
          guard: 'issuesNow',
          actions: 'recordCredential',
        },
        'issuance.deferred': {
          target: 'deferred',
          guard: 'defers',
          actions: 'recordDeferral',
        },
      },
    },
    /** Accepted for later: the deferred endpoint answers 202 until `readyAt`, then the credentials, once. */
    deferred: {
      description: 'The credential endpoint answered with a transaction_id (OpenID4VCI 1.0 §9).',
      on: {
        'issuance.deferred_collected': {
          target: 'credential_issued',
          guard: 'deferredReady',
          actions: 'recordCollection',
        },
      },
    },
    credential_issued: {
      description: 'Credentials were issued (OpenID4VCI 1.0 §8).',
      on: {
        'issuance.credential_issued': { actions: 'recordCredential' },
        'issuance.notified': { target: 'notified', guard: 'notificationAllowed', actions: 'recordNotification' },
      },
    },
    notified: {
      description: 'The wallet sent a notification (OpenID4VCI 1.0 §11).',
      on: {
        'issuance.notified': { guard: 'notificationAllowed', actions: 'recordNotification' },
      },
    },
    expired: {
      type: 'final',
      description:
        'The offer lapsed, its tx_code was burned, or its code expired; nothing more is issued (decisions §8).',
    },
  },
});
