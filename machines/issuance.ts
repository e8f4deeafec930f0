import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions } from './updates.ts';
import { issuanceUpdates } from './issuance-updates.ts';
import { issuanceGuards } from './issuance-guards.ts';

export { issuanceUpdates } from './issuance-updates.ts';
import type { IssuanceContext, IssuanceEvent } from './issuance-types.ts';

export type { CredentialStatusName, IssuanceContext, IssuanceEvent, IssuedCredentialRecord } from './issuance-types.ts';

export { TX_CODE_ATTEMPTS } from './issuance-guards.ts';

/** What an offer answers before its token, whether or not the wallet has fetched it yet. */
const redeemable = {
  'issuance.tx_code_rejected': [
    {
      description: 'The fifth wrong tx_code burns the pre-authorized code (decisions §8).',
      guard: 'lastTxCodeAttempt',
      target: 'expired',
      actions: ['countTxCodeFailure', 'recordTxCodeBurned'],
    },
    { description: 'A wrong tx_code: invalid_grant, counted (OpenID4VCI 1.0 §6.3).', actions: 'countTxCodeFailure' },
  ],
  'issuance.token_issued': {
    description:
      'The token endpoint accepts the pre-authorized code or the authorization code, once, while it lives (OpenID4VCI 1.0 §6).',
    target: 'token_issued',
    guard: 'offerLive',
    actions: 'recordToken',
  },
  'issuance.expired': {
    description: 'Met after its lifetime (the offer 600 s, the request_uri 90 s, the code 60 s; decisions §8).',
    target: 'expired',
    actions: 'recordExpiry',
  },
  'issuance.authorization_requested': {
    description:
      "POST /oid4vci/par with PKCE S256 and authorization_details or scope, with the offer's issuer_state or without (RFC 9126, OpenID4VCI 1.0 §5.1).",
    target: 'authorization_requested',
    guard: 'offersAuthorizationCode',
    actions: 'recordAuthorizationRequest',
  },
} as const;

export { issuanceGuards } from './issuance-guards.ts';

/**
 * One credential offer of the OID4VCI issuer and what the wallet did with it (decisions section 8),
 * stream `issuance:<offer_id>`: offered -> (offer fetched) -> token -> credential (directly, or
 * deferred then collected) -> notified, or
 * expired (lapsed, or the pre-authorized code burned by wrong transaction codes). Secrets arrive as
 * hashes only. Time comes inside the events.
 */
export const issuanceMachine = setup({
  types: { context: {} as IssuanceContext, events: {} as IssuanceEvent },
  guards: issuanceGuards,
  actions: updateActions<IssuanceContext, IssuanceEvent, typeof issuanceUpdates>(issuanceUpdates),
}).createMachine({
  id: 'issuance',
  description:
    'One OpenID4VCI offer or wallet-initiated request (decisions §8), stream issuance:<offer_id>: offered, token, credential (or deferred), notified, or expired.',
  initial: 'new',
  context: {
    credentials: [],
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
      description:
        'A DPoP proof without the required nonce answered use_dpop_nonce (RFC 9449 §8, §9), counted until the issuance expires.',
      guard: 'notExpired',
      actions: 'countNonceChallenge',
    },
    // Credential status (docs/status.md): any issued credential, whatever the wallet said since.
    'credential.status_changed': {
      description:
        'POST /oid4vci/offers/{id}/credentials/{n}/status: valid, suspended or revoked; revoked is final (draft-ietf-oauth-status-list §7.1; docs/status.md).',
      guard: 'statusChangeable',
      actions: 'recordStatusChange',
    },
    // Correlation (docs/debugging.md): the first wallet exchange that names itself is kept.
    'issuance.correlated': {
      description: 'A request naming its wallet exchange (X-Portico-Exchange, docs/debugging.md); the first is kept.',
      guard: 'notCorrelated',
      actions: 'recordCorrelation',
    },
  },
  states: {
    new: {
      description: 'No offer yet.',
      on: {
        'issuance.authorization_requested': {
          description:
            "POST /oid4vci/par with PKCE S256 and authorization_details or scope, with the offer's issuer_state or without (RFC 9126, OpenID4VCI 1.0 §5.1).",
          target: 'authorization_requested',
          actions: 'recordAuthorizationRequest',
        },
        'issuance.offered': {
          description:
            'POST /oid4vci/offers: a pre-authorized code (with a tx_code) or an issuer_state (OpenID4VCI 1.0 §4.1; decisions §8).',
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
          description: 'GET credential_offer_uri while the offer lives (OpenID4VCI 1.0 §4.1.3).',
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
        'issuance.offer_fetched': {
          description: 'GET credential_offer_uri while the offer lives (OpenID4VCI 1.0 §4.1.3).',
          guard: 'offerLive',
        },
        ...redeemable,
      },
    },
    /** PAR accepted; its request_uri waits for the authorization endpoint. */
    authorization_requested: {
      description: 'A pushed authorization request named this offer (RFC 9126, OpenID4VCI 1.0 §5.1.4).',
      on: {
        'issuance.authorization_started': {
          description:
            'GET /oid4vci/authorize with the client_id and request_uri, once, before it lapses (RFC 9126 §4).',
          target: 'authorizing',
          guard: 'requestUriLive',
          actions: 'recordAuthorizationStarted',
        },
        'issuance.expired': {
          description: 'Met after its lifetime (the offer 600 s, the request_uri 90 s, the code 60 s; decisions §8).',
          target: 'expired',
          actions: 'recordExpiry',
        },
      },
    },
    /** The person signs in and consents (or declines). */
    authorizing: {
      description: 'The person is at the authorization endpoint (OpenID4VCI 1.0 §5.1).',
      on: {
        'issuance.code_issued': {
          description: 'Login and consent: the code goes back with iss (RFC 6749 §4.1.2, RFC 9207).',
          target: 'code_issued',
          actions: 'recordCode',
        },
        'issuance.authorization_declined': {
          description: 'The person declined: access_denied (RFC 6749 §4.1.2.1).',
          target: 'expired',
          actions: 'recordDecline',
        },
      },
    },
    /** A code waits for the token endpoint: once, within 60 s. */
    code_issued: {
      description: 'An authorization code went back to the wallet (RFC 6749 §4.1.2).',
      on: {
        'issuance.token_issued': {
          description:
            'The token endpoint accepts the pre-authorized code or the authorization code, once, while it lives (OpenID4VCI 1.0 §6).',
          target: 'token_issued',
          guard: 'codeLive',
          actions: ['recordToken', 'spendCode'],
        },
        'issuance.expired': {
          description: 'Met after its lifetime (the offer 600 s, the request_uri 90 s, the code 60 s; decisions §8).',
          target: 'expired',
          actions: 'recordExpiry',
        },
      },
    },
    token_issued: {
      description: 'The code was spent for an access token (OpenID4VCI 1.0 §6).',
      on: {
        'issuance.credential_issued': {
          description: 'POST /oid4vci/credential with key proofs (OpenID4VCI 1.0 §8).',
          target: 'credential_issued',
          guard: 'issuesNow',
          actions: 'recordCredential',
        },
        'issuance.deferred': {
          description: "A deferred offer's credential request: 202 with a transaction_id (OpenID4VCI 1.0 §9).",
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
          description: 'POST /oid4vci/deferred_credential once the credential is ready (OpenID4VCI 1.0 §9.1).',
          target: 'credential_issued',
          guard: 'deferredReady',
          actions: 'recordCollection',
        },
      },
    },
    credential_issued: {
      description: 'Credentials were issued (OpenID4VCI 1.0 §8).',
      on: {
        'issuance.credential_issued': {
          description: 'POST /oid4vci/credential with key proofs (OpenID4VCI 1.0 §8).',
          actions: 'recordCredential',
        },
        'issuance.notified': {
          description:
            'POST /oid4vci/notification; credential_failure is refused after credential_accepted (OpenID4VCI 1.0 §11).',
          target: 'notified',
          guard: 'notificationAllowed',
          actions: 'recordNotification',
        },
      },
    },
    notified: {
      description: 'The wallet sent a notification (OpenID4VCI 1.0 §11).',
      on: {
        'issuance.notified': {
          description:
            'POST /oid4vci/notification; credential_failure is refused after credential_accepted (OpenID4VCI 1.0 §11).',
          guard: 'notificationAllowed',
          actions: 'recordNotification',
        },
      },
    },
    expired: {
      type: 'final',
      description:
        'The offer lapsed, its tx_code was burned, or its code expired; nothing more is issued (decisions §8).',
    },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const issuanceStates = {
  /** The person signs in, or the code waits for its token request: reported as `authorization_requested` (decisions §8). */
  authorizing: inState('authorizing', 'code_issued'),
  /** Closed before its credentials were issued: lapsed, withdrawn, or burned by wrong transaction codes. */
  expired: inState('expired'),
  /** Waiting on the holder before any token: an offer met past its lifetime in these states is closed as lapsed. */
  lapsable: inState('offered', 'offer_fetched', 'authorization_requested', 'code_issued'),
  /** The pre-authorized code may still be exchanged. */
  preAuthorizable: inState('offered', 'offer_fetched'),
  /** A pushed authorization request waits for the person. */
  authorizationRequested: inState('authorization_requested'),
  /** An authorization code was issued and not redeemed. */
  codeIssued: inState('code_issued'),
  /** The credential is deferred: a transaction_id will fetch it. */
  deferred: inState('deferred'),
};
