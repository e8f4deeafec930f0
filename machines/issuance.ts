import { assign, setup } from 'xstate';

/**
 * One credential offer of the OID4VCI issuer and what the wallet did with it (decisions section 8),
 * stream `issuance:<offer_id>`: offered -> (offer fetched) -> token -> credential (directly, or
 * deferred then collected) -> notified, or
 * expired (lapsed, or the pre-authorized code burned by wrong transaction codes). Secrets arrive as
 * hashes only. Time comes inside the events.
 */
export const TX_CODE_ATTEMPTS = 5;

export type IssuanceGrant = 'pre-authorized_code' | 'authorization_code';

export type IssuanceEvent =
  | {
      type: 'issuance.offered';
      at: number;
      grant: IssuanceGrant;
      configuration_ids: string[];
      code_hash?: string;
      tx_code_hash?: string;
      /** authorization_code offers: the issuer_state the wallet sends back at PAR. */
      issuer_state_hash?: string;
      expires_at: number;
      by_value: boolean;
      user: string;
      /** Credentials of this offer are issued deferred (202, then the deferred endpoint). */
      deferred?: boolean;
    }
  | { type: 'issuance.offer_fetched'; at: number }
  /** A pushed authorization request (RFC 9126) for this issuance: wallet-initiated (from `new`) or with the offer's issuer_state. */
  | {
      type: 'issuance.authorization_requested';
      at: number;
      client_id: string;
      redirect_uri: string;
      code_challenge: string;
      configuration_ids: string[];
      authorization_details: boolean;
      state?: string;
      dpop_jkt?: string;
      request_uri_hash: string;
      request_expires_at: number;
      /** The client authenticated with a client attestation at PAR. */
      attested?: boolean;
      /** For a wallet-initiated issuance: until when a token may be issued. */
      expires_at?: number;
    }
  /** The request_uri was used at the authorization endpoint (single use): the person signs in and consents. */
  | { type: 'issuance.authorization_started'; at: number; interaction_id: string }
  | { type: 'issuance.code_issued'; at: number; code_hash: string; sub: string; code_expires_at: number }
  | { type: 'issuance.authorization_declined'; at: number }
  | { type: 'issuance.tx_code_rejected'; at: number }
  | {
      type: 'issuance.token_issued';
      at: number;
      token_hash: string;
      token_type: 'Bearer' | 'DPoP';
      dpop_jkt?: string;
      client_id?: string;
      scope: string;
      attested?: boolean;
      challenge_used?: boolean;
    }
  | {
      type: 'issuance.credential_issued';
      at: number;
      configuration_id: string;
      proof_count: number;
      holder_jkts: string[];
      notification_id_hash: string;
      interaction_id?: string;
      key_attestation?: { key_storage: string[]; user_authentication: string[] };
      request_encrypted?: boolean;
      response_encrypted?: boolean;
    }
  | {
      type: 'issuance.notified';
      at: number;
      event: 'credential_accepted' | 'credential_failure' | 'credential_deleted';
      interaction_id?: string;
    }
  /** A credential request accepted for later: the proven holder keys are public and kept to issue at collection. */
  | {
      type: 'issuance.deferred';
      at: number;
      configuration_id: string;
      proof_count: number;
      holder_jkts: string[];
      holder_jwks: Record<string, unknown>[];
      transaction_id_hash: string;
      ready_at: number;
    }
  | { type: 'issuance.deferred_collected'; at: number; notification_id_hash: string }
  | { type: 'issuance.expired'; at: number; reason: 'lapsed' | 'tx_code_burned' | 'code_expired' }
  /** A DPoP nonce challenge (use_dpop_nonce) was answered to this issuance's wallet, by the AS or the RS. */
  | { type: 'issuance.nonce_challenged'; at: number; side: 'as' | 'rs' };

export interface IssuanceContext {
  grant?: IssuanceGrant;
  configurationIds: string[];
  codeHash?: string;
  txCodeHash?: string;
  issuerStateHash?: string;
  txCodeFailures: number;
  expiresAt: number;
  user?: string;
  offerFetched: boolean;
  tokenHash?: string;
  tokenType?: 'Bearer' | 'DPoP';
  dpopJkt?: string;
  clientId?: string;
  scope?: string;
  configurationId?: string;
  proofCount?: number;
  holderJkts: string[];
  notificationIdHash?: string;
  notificationEvent?: string;
  /** The wallet said `credential_accepted` at some point: a later `credential_failure` is refused. */
  credentialAccepted?: boolean;
  interactionId?: string;
  expiredReason?: string;
  attested?: boolean;
  challengeUsed?: boolean;
  keyAttestation?: { key_storage: string[]; user_authentication: string[] };
  dpopNonceChallenges: number;
  requestEncrypted?: boolean;
  responseEncrypted?: boolean;
  deferred: boolean;
  transactionIdHash?: string;
  readyAt?: number;
  holderJwks: Record<string, unknown>[];
  /** Authorization code flow (PAR, authorize, code). */
  par?: {
    clientId: string;
    redirectUri: string;
    codeChallenge: string;
    authorizationDetails: boolean;
    state?: string;
    dpopJkt?: string;
    requestUriHash: string;
    requestExpiresAt: number;
    attested: boolean;
  };
  /** The login/consent interaction of the authorization endpoint. */
  loginInteractionId?: string;
  authCodeHash?: string;
  authCodeExpiresAt?: number;
}

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

export const issuanceMachine = setup({
  types: { context: {} as IssuanceContext, events: {} as IssuanceEvent },
  guards: {
    /** An offer made for the authorization code grant (its issuer_state) may be requested by PAR. */
    offersAuthorizationCode: ({ context }) => context.grant === 'authorization_code' && context.par === undefined,
    /** The pushed request is used once, before it lapses. */
    requestUriLive: ({ context, event }) => context.par !== undefined && event.at < context.par.requestExpiresAt,
    /** The code lives 60 s. */
    codeLive: ({ context, event }) => context.authCodeExpiresAt !== undefined && event.at < context.authCodeExpiresAt,
    /** Tokens are issued only for a live offer. */
    offerLive: ({ context, event }) => before(context, event.at),
    /** The fifth wrong transaction code burns the pre-authorized code. */
    lastTxCodeAttempt: ({ context }) => context.txCodeFailures + 1 >= TX_CODE_ATTEMPTS,
    /** Once `credential_accepted` came, `credential_failure` is refused, even after a `credential_deleted`. */
    notificationAllowed: ({ context, event }) =>
      event.type === 'issuance.notified' &&
      !(context.credentialAccepted === true && event.event === 'credential_failure'),
  },
  actions: {
    countTxCodeFailure: assign(({ context }) => ({ txCodeFailures: context.txCodeFailures + 1 })),
    recordTxCodeBurned: assign({ expiredReason: 'tx_code_burned' }),
    recordExpiry: assign(({ event }) => (event.type === 'issuance.expired' ? { expiredReason: event.reason } : {})),
    recordToken: assign(({ event }) => {
      if (event.type !== 'issuance.token_issued') return {};
      return {
        tokenHash: event.token_hash,
        tokenType: event.token_type,
        dpopJkt: event.dpop_jkt,
        clientId: event.client_id,
        scope: event.scope,
        attested: event.attested === true,
        challengeUsed: event.challenge_used === true,
      };
    }),
    recordAuthorizationRequest: assign(({ context, event }) => {
      if (event.type !== 'issuance.authorization_requested') return {};
      return {
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
      };
    }),
    recordNotification: assign(({ context, event }) => {
      if (event.type !== 'issuance.notified') return {};
      return {
        notificationEvent: event.event,
        credentialAccepted: context.credentialAccepted === true || event.event === 'credential_accepted',
        ...(event.interaction_id ? { interactionId: event.interaction_id } : {}),
      };
    }),
    recordCredential: assign(({ event }) => {
      if (event.type !== 'issuance.credential_issued') return {};
      return {
        configurationId: event.configuration_id,
        proofCount: event.proof_count,
        holderJkts: event.holder_jkts,
        notificationIdHash: event.notification_id_hash,
        ...(event.interaction_id ? { interactionId: event.interaction_id } : {}),
        ...(event.key_attestation ? { keyAttestation: event.key_attestation } : {}),
        requestEncrypted: event.request_encrypted === true,
        responseEncrypted: event.response_encrypted === true,
      };
    }),
  },
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
      guard: ({ context }) => context.expiredReason === undefined,
      actions: assign(({ context }) => ({ dpopNonceChallenges: context.dpopNonceChallenges + 1 })),
    },
  },
  states: {
    new: {
      on: {
        'issuance.authorization_requested': {
          target: 'authorization_requested',
          actions: 'recordAuthorizationRequest',
        },
        'issuance.offered': {
          target: 'offered',
          actions: assign(({ event }) => ({
            grant: event.grant,
            configurationIds: event.configuration_ids,
            codeHash: event.code_hash,
            txCodeHash: event.tx_code_hash,
            issuerStateHash: event.issuer_state_hash,
            expiresAt: event.expires_at,
            user: event.user,
            deferred: event.deferred === true,
          })),
        },
      },
    },
    offered: {
      on: {
        'issuance.offer_fetched': {
          target: 'offer_fetched',
          guard: 'offerLive',
          actions: assign({ offerFetched: true }),
        },
        ...redeemable,
      },
    },
    offer_fetched: {
      on: {
        'issuance.offer_fetched': { guard: 'offerLive' },
        ...redeemable,
      },
    },
    /** PAR accepted; its request_uri waits for the authorization endpoint. */
    authorization_requested: {
      on: {
        'issuance.authorization_started': {
          target: 'authorizing',
          guard: 'requestUriLive',
          actions: assign(({ event }) => ({ loginInteractionId: event.interaction_id })),
        },
        'issuance.expired': { target: 'expired', actions: 'recordExpiry' },
      },
    },
    /** The person signs in and consents (or declines). */
    authorizing: {
      on: {
        'issuance.code_issued': {
          target: 'code_issued',
          actions: assign(({ event }) => ({
            authCodeHash: event.code_hash,
            authCodeExpiresAt: event.code_expires_at,
            user: event.sub,
          })),
        },
        'issuance.authorization_declined': { target: 'expired', actions: assign({ expiredReason: 'declined' }) },
      },
    },
    /** A code waits for the token endpoint: once, within 60 s. */
    code_issued: {
      on: {
        'issuance.token_issued': {
          target: 'token_issued',
          guard: 'codeLive',
          actions: ['recordToken', assign({ authCodeHash: undefined })],
        },
        'issuance.expired': { target: 'expired', actions: 'recordExpiry' },
      },
    },
    token_issued: {
      on: {
        'issuance.credential_issued': {
          target: 'credential_issued',
          guard: ({ context }) => !context.deferred,
          actions: 'recordCredential',
        },
        'issuance.deferred': {
          target: 'deferred',
          guard: ({ context }) => context.deferred,
          actions: assign(({ event }) => ({
            configurationId: event.configuration_id,
            proofCount: event.proof_count,
            holderJkts: event.holder_jkts,
            holderJwks: event.holder_jwks,
            transactionIdHash: event.transaction_id_hash,
            readyAt: event.ready_at,
          })),
        },
      },
    },
    /** Accepted for later: the deferred endpoint answers 202 until `readyAt`, then the credentials, once. */
    deferred: {
      on: {
        'issuance.deferred_collected': {
          target: 'credential_issued',
          guard: ({ context, event }) => event.at >= (context.readyAt ?? Infinity),
          actions: assign(({ event }) => ({
            notificationIdHash: event.notification_id_hash,
            transactionIdHash: undefined,
          })),
        },
      },
    },
    credential_issued: {
      on: {
        'issuance.credential_issued': { actions: 'recordCredential' },
        'issuance.notified': { target: 'notified', guard: 'notificationAllowed', actions: 'recordNotification' },
      },
    },
    notified: {
      on: {
        'issuance.notified': { guard: 'notificationAllowed', actions: 'recordNotification' },
      },
    },
    expired: { type: 'final' },
  },
});
