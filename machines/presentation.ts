import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

import type { PresentationContext, PresentationEvent } from './presentation-types.ts';

export type {
  ClientIdPrefix,
  ResponseMode,
  PresentationReason,
  PresentationCheck,
  DisclosedPresentation,
  CredentialStatusView,
  PresentationEvent,
  PresentationContext,
} from './presentation-types.ts';

const live = (context: PresentationContext, at: number) => at < context.expiresAt;
/** Digital Credentials API requests are answered through the browser, with its origin; the others never are. */
export const throughTheBrowser = (mode: PresentationContext['responseMode']) =>
  mode === 'dc_api' || mode === 'dc_api.jwt';

/** What a request that has not been answered yet may receive. */
const unanswered = {
  'presentation.response_received': {
    description:
      'POST /oid4vp/response with vp_token and state, or an encrypted response (OpenID4VP 1.0 §8.2, §8.3); for a Digital Credentials API request, POST /oid4vp/dc-api/{transaction_id}/response with the origin (Appendix A.4); before the request lapses.',
    target: 'answered',
    guard: 'answerable',
    actions: 'recordResponse',
  },
  'presentation.wallet_error': {
    description: 'POST /oid4vp/response with error and state (OpenID4VP 1.0 §8.5).',
    target: 'wallet_error',
    guard: 'live',
    actions: 'recordWalletError',
  },
  'presentation.expired': {
    description: 'Met after 300 s without an answer (decisions §9).',
    target: 'expired',
    guard: 'lapsed',
  },
} as const;

/** The arguments xstate gives a guard of this machine. */
type PresentationGuardArgs = { context: PresentationContext; event: PresentationEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const presentationGuards = {
  /** Anything the wallet does counts only before the request lapses (300 s). */
  live: ({ context, event }: PresentationGuardArgs) => live(context, event.at),
  lapsed: ({ context, event }: PresentationGuardArgs) => !live(context, event.at),
  /** A live request answered through its channel: the browser's origin for DC API requests, none otherwise. */
  answerable: ({ context, event }: PresentationGuardArgs) =>
    event.type === 'presentation.response_received' &&
    live(context, event.at) &&
    throughTheBrowser(context.responseMode) === (event.origin !== undefined),
  /** Only the first wallet exchange that names itself is kept. */
  notCorrelated: ({ context }: PresentationGuardArgs) => context.walletExchange === undefined,
  /** By-reference requests are fetched with a method the request allows (`methodAllowed`). */
  fetchable: ({ context, event }: PresentationGuardArgs) =>
    event.type === 'presentation.request_fetched' &&
    context.requestUriMethod !== undefined &&
    methodAllowed(context.requestUriMethod, event.method) &&
    live(context, event.at),
};

type E<T extends PresentationEvent['type']> = Extract<PresentationEvent, { type: T }>;

/**
 * OpenID4VP 1.0 §5.10: a `get` request object is fetched by GET alone; a `post` one by POST, or by
 * GET from a wallet that does not support POST (without a `wallet_nonce`).
 */
export function methodAllowed(created: 'get' | 'post', used: 'get' | 'post'): boolean {
  return used === 'get' || created === 'post';
}

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const presentationUpdates = {
  recordRequest: (_: PresentationContext, event: E<'presentation.created'>) => ({
    clientId: event.client_id,
    prefix: event.client_id_prefix,
    responseMode: event.response_mode,
    requestUriMethod: event.request_uri_method,
    nonce: event.nonce,
    stateHash: event.state_hash,
    transactionIdHash: event.transaction_id_hash,
    dcqlQuery: event.dcql_query,
    transactionData: event.transaction_data,
    expectedOrigins: event.expected_origins,
    expiresAt: event.expires_at,
    profile: event.profile,
    encValues: event.enc_values,
    encJwk: event.enc_jwk,
  }),
  recordFetch: (context: PresentationContext, event: E<'presentation.request_fetched'>) => ({
    fetches: context.fetches + 1,
    walletNonce: event.wallet_nonce,
  }),
  recordResponse: (_: PresentationContext, event: E<'presentation.response_received'>) => ({
    enc: event.enc,
    ...(event.origin !== undefined ? { origin: event.origin } : {}),
  }),
  recordWalletError: (_: PresentationContext, event: E<'presentation.wallet_error'>) => ({
    walletError: {
      error: event.error,
      ...(event.error_description ? { error_description: event.error_description } : {}),
    },
  }),
  recordVerdict: (_: PresentationContext, event: E<'presentation.verified'> | E<'presentation.rejected'>) => ({
    ...(event.type === 'presentation.rejected' ? { reasons: event.reasons } : {}),
    presentations: event.presentations,
    responseCodeHash: event.response_code_hash,
    ...(event.checks ? { checks: event.checks } : {}),
  }),
  recordCorrelation: (_: PresentationContext, event: E<'presentation.correlated'>) => ({
    walletExchange: event.stream,
  }),
} satisfies Record<string, ContextUpdate<PresentationContext>>;

/**
 * One OID4VP presentation request of the verifier (decisions section 9), stream
 * `presentation:<request_id>`: created -> fetched (request object by reference) -> answered ->
 * verified | rejected, or wallet_error, or expired. A by-value request is answered from `created`.
 * No vp_token and no private key ever reaches an event; the state arrives only as a hash.
 */
export const presentationMachine = setup({
  types: { context: {} as PresentationContext, events: {} as PresentationEvent },
  guards: presentationGuards,
  actions: updateActions<PresentationContext, PresentationEvent, typeof presentationUpdates>(presentationUpdates),
}).createMachine({
  id: 'presentation',
  description:
    'One OpenID4VP request of the verifier (decisions §9), stream presentation:<request_id>: created, fetched, answered, then verified, rejected, wallet_error or expired.',
  initial: 'new',
  context: {
    clientId: '',
    responseMode: 'direct_post',
    nonce: '',
    stateHash: '',
    dcqlQuery: null,
    expiresAt: 0,
    fetches: 0,
    reasons: [],
  },
  // Correlation (docs/debugging.md): the first wallet exchange that names itself is kept, in any state.
  on: {
    'presentation.correlated': {
      description: 'A request naming its wallet exchange (X-Portico-Exchange, docs/debugging.md); the first is kept.',
      guard: 'notCorrelated',
      actions: 'recordCorrelation',
    },
  },
  states: {
    new: {
      description: 'No request yet.',
      on: {
        'presentation.created': {
          description: 'POST /oid4vp/request/create: the DCQL query, nonce and state (OpenID4VP 1.0 §5; decisions §9).',
          target: 'created',
          actions: 'recordRequest',
        },
      },
    },
    created: {
      description: 'Request created with its DCQL query and nonce (OpenID4VP 1.0 §5; decisions §9).',
      on: {
        'presentation.request_fetched': {
          description: 'GET or POST request_uri with the method the request names (OpenID4VP 1.0 §5.10).',
          target: 'fetched',
          guard: 'fetchable',
          actions: 'recordFetch',
        },
        ...unanswered,
      },
    },
    /** The wallet may fetch again (a retry) until it answers. */
    fetched: {
      description: 'The wallet fetched the request object by reference (RFC 9101 §5.2, OpenID4VP 1.0 §5.10).',
      on: {
        'presentation.request_fetched': {
          description: 'GET or POST request_uri with the method the request names (OpenID4VP 1.0 §5.10).',
          guard: 'fetchable',
          actions: 'recordFetch',
        },
        ...unanswered,
      },
    },
    /** A response arrived; its verdict follows (the vp_token itself is never stored). */
    answered: {
      description: 'A response arrived at the response endpoint (OpenID4VP 1.0 §8.2).',
      on: {
        'presentation.verified': {
          description: 'Every check held and the DCQL query is satisfied (OpenID4VP 1.0 §8.6, §6).',
          target: 'verified',
          actions: 'recordVerdict',
        },
        'presentation.rejected': {
          description: 'A named check failed (decisions §9 reason check names).',
          target: 'rejected',
          actions: 'recordVerdict',
        },
      },
    },
    verified: {
      type: 'final',
      description: 'Every check held; the disclosed claims are kept (decisions §9).',
    },
    rejected: {
      type: 'final',
      description: 'A named check failed; the reasons are kept (decisions §9).',
    },
    wallet_error: {
      type: 'final',
      description: 'The wallet answered with an error (OpenID4VP 1.0 §8.5).',
    },
    expired: {
      type: 'final',
      description: 'Not answered within 300 s (decisions §9).',
    },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const presentationStates = {
  /** A request exists (any state after new). */
  /** Waiting for the wallet's answer: created, or its request object fetched. */
  unanswered: inState('created', 'fetched'),
  /** Its lifetime passed unanswered. */
  expired: inState('expired'),
  /** A DC API request is never fetched: one past created, unless by expiring, was answered. */
  openToDcApi: inState('created', 'expired'),
  created: inState('created', 'fetched', 'answered', 'verified', 'rejected', 'wallet_error', 'expired'),
};
