import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * One exchange of the wallet harness with an issuer or a verifier (decisions section 10), stream
 * `wallet-exchange:<id>` in `wallet.db`. Issuance: started -> discovered -> authorized -> token ->
 * nonce -> credential -> deferred -> stored -> notified, or (the protected-resource mode) token ->
 * resource_read; presentation: started -> resolved -> presented; any of them -> failed. Each wire call is an `exchange.hop` whose `step` moves the state;
 * secrets appear only as fingerprints.
 */
export type ExchangeKind = 'issuance' | 'presentation';
export type HopStep =
  | 'offer'
  | 'metadata'
  | 'as_metadata'
  | 'challenge'
  | 'par'
  | 'authorize'
  | 'token'
  | 'nonce'
  | 'credential'
  | 'deferred'
  | 'notification'
  | 'issuer_offer'
  | 'jwks'
  | 'request_object'
  | 'response'
  | 'resource';

export type WalletExchangeEvent =
  | { type: 'exchange.started'; at: number; kind: ExchangeKind; session: string; source: string }
  | { type: 'exchange.hop'; at: number; step: HopStep; method: string; url: string; status: number; enc?: string }
  | {
      type: 'exchange.credential_stored';
      at: number;
      credential_id: string;
      format: string;
      holder_key_thumbprint?: string;
      batch_secondary: boolean;
    }
  | {
      type: 'exchange.presented';
      at: number;
      verifier: string;
      upstream_status: number;
      enc?: string;
      credential_ids: string[];
    }
  | { type: 'exchange.failed'; at: number; error: string; check?: string }
  /** The issuer's or verifier's stream of this exchange, as its response named it (`issuance:<id>`, `presentation:<id>`). */
  | { type: 'exchange.correlated'; at: number; stream: string };

export interface WalletExchangeContext {
  kind?: ExchangeKind;
  session?: string;
  source?: string;
  hops: number;
  stored: string[];
  error?: string;
  /** The issuer's and verifier's streams that took part, each once. */
  peers?: string[];
}

/** Which hop moves an issuance to which state (hops not listed leave it where it is). */
const ISSUANCE_STEPS: Record<string, HopStep[]> = {
  discovered: ['offer', 'metadata', 'as_metadata', 'jwks', 'issuer_offer'],
  authorized: ['par', 'authorize', 'challenge'],
  token: ['token'],
  nonce: ['nonce'],
  credential: ['credential'],
  deferred: ['deferred'],
};

const hop = (target: string, steps: HopStep[]) => ({
  target,
  description: `A wire call of step ${steps.join(' | ')} (decisions §10).`,
  guard: { type: 'hopIn' as const, params: { steps } },
  actions: 'countHop' as const,
});
const anyHop = { description: 'Any other wire call, counted.', actions: 'countHop' as const };
const stored = {
  target: 'stored',
  description: 'A credential checked and stored in the session (service spec §4, Wallet OID4VCI client behaviour).',
  actions: 'recordStored' as const,
};
const storedAgain = { description: 'One more credential of the batch stored.', actions: 'recordStored' as const };
const failed = {
  target: 'failed',
  description: 'A step failed; the error the wallet answered is kept (decisions §10).',
  actions: 'recordFailure' as const,
};
const presented = {
  target: 'presented',
  description: 'The verifier accepted the response (service spec §4, Wallet OID4VP behaviour).',
};

/** The arguments xstate gives a guard of this machine. */
type WalletExchangeGuardArgs = { context: WalletExchangeContext; event: WalletExchangeEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const walletExchangeGuards = {
  /** A hop whose step is one of `steps` (ISSUANCE_STEPS) moves the exchange on. */
  hopIn: ({ event }: WalletExchangeGuardArgs, params: { steps: HopStep[] }) =>
    event.type === 'exchange.hop' && params.steps.includes(event.step),
  /** Each peer stream is recorded once. */
  newPeer: ({ context, event }: WalletExchangeGuardArgs) =>
    event.type === 'exchange.correlated' && !(context.peers ?? []).includes(event.stream),
  /** A presentation exchange starts on its own branch. */
  presenting: ({ event }: WalletExchangeGuardArgs) =>
    event.type === 'exchange.started' && event.kind === 'presentation',
};

type E<T extends WalletExchangeEvent['type']> = Extract<WalletExchangeEvent, { type: T }>;

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const walletExchangeUpdates = {
  recordStart: (_: WalletExchangeContext, event: E<'exchange.started'>) => ({
    kind: event.kind,
    session: event.session,
    source: event.source,
  }),
  countHop: (context: WalletExchangeContext) => ({ hops: context.hops + 1 }),
  recordStored: (context: WalletExchangeContext, event: E<'exchange.credential_stored'>) => ({
    stored: [...context.stored, event.credential_id],
  }),
  recordFailure: (_: WalletExchangeContext, event: E<'exchange.failed'>) => ({ error: event.error }),
  recordPeer: (context: WalletExchangeContext, event: E<'exchange.correlated'>) => ({
    peers: [...(context.peers ?? []), event.stream],
  }),
} satisfies Record<string, ContextUpdate<WalletExchangeContext>>;

export const walletExchangeMachine = setup({
  types: { context: {} as WalletExchangeContext, events: {} as WalletExchangeEvent },
  guards: walletExchangeGuards,
  actions: updateActions<WalletExchangeContext, WalletExchangeEvent, typeof walletExchangeUpdates>(
    walletExchangeUpdates,
  ),
}).createMachine({
  id: 'wallet-exchange',
  description:
    "One exchange of the wallet harness with an issuer or a verifier (decisions §10), stream wallet-exchange:<id> in the wallet's log.",
  initial: 'new',
  context: { hops: 0, stored: [] },
  // Correlation (docs/debugging.md): each peer stream is kept once, in any state.
  on: {
    'exchange.correlated': {
      description:
        'An answer named its issuer or verifier stream (X-Portico-Stream, docs/debugging.md); each is kept once.',
      guard: 'newPeer',
      actions: 'recordPeer',
    },
  },
  states: {
    new: {
      description: 'No exchange yet.',
      on: {
        'exchange.started': [
          {
            description: 'POST /api/resolve, /api/present or /submit (decisions §10).',
            guard: 'presenting',
            target: 'started_presentation',
            actions: 'recordStart',
          },
          {
            description: 'POST /api/issue or /api/import (decisions §10).',
            target: 'started',
            actions: 'recordStart',
          },
        ],
      },
    },
    started: {
      description: 'An issuance began: from an offer, an issuer, or the bootstrap (decisions §10).',
      on: {
        'exchange.hop': [hop('discovered', ISSUANCE_STEPS.discovered), hop('token', ISSUANCE_STEPS.token), anyHop],
        'exchange.credential_stored': stored,
        'exchange.failed': failed,
      },
    },
    discovered: {
      description: "The issuer's metadata, authorization server metadata and keys were read (OpenID4VCI 1.0 §12).",
      on: {
        'exchange.hop': [hop('authorized', ISSUANCE_STEPS.authorized), hop('token', ISSUANCE_STEPS.token), anyHop],
        'exchange.failed': failed,
      },
    },
    authorized: {
      description: 'A pushed request and the authorization went through (RFC 9126, OpenID4VCI 1.0 §5).',
      on: { 'exchange.hop': [hop('token', ISSUANCE_STEPS.token), anyHop], 'exchange.failed': failed },
    },
    token: {
      description: 'The wallet holds an access token (OpenID4VCI 1.0 §6).',
      on: {
        'exchange.hop': [
          hop('nonce', ISSUANCE_STEPS.nonce),
          hop('credential', ISSUANCE_STEPS.credential),
          hop('resource_read', ['resource']),
          anyHop,
        ],
        'exchange.failed': failed,
      },
    },
    nonce: {
      description: 'A c_nonce was fetched (OpenID4VCI 1.0 §7).',
      on: { 'exchange.hop': [hop('credential', ISSUANCE_STEPS.credential), anyHop], 'exchange.failed': failed },
    },
    credential: {
      description: 'The credential request was sent (OpenID4VCI 1.0 §8).',
      on: {
        'exchange.hop': [hop('deferred', ISSUANCE_STEPS.deferred), anyHop],
        'exchange.credential_stored': stored,
        'exchange.failed': failed,
      },
    },
    deferred: {
      description:
        'The issuer deferred the credential; the wallet polls (OpenID4VCI 1.0 §9; at most 10 polls, decisions §10).',
      on: { 'exchange.hop': anyHop, 'exchange.credential_stored': stored, 'exchange.failed': failed },
    },
    stored: {
      description: 'The credentials are checked and stored in the session.',
      on: {
        'exchange.credential_stored': storedAgain,
        'exchange.hop': [hop('notified', ['notification']), anyHop],
        'exchange.failed': failed,
      },
    },
    notified: { type: 'final', description: 'The wallet sent its notification (OpenID4VCI 1.0 §11).' },
    resource_read: {
      type: 'final',
      description: 'The protected-resource mode read its resource with the token (decisions §10 import).',
    },
    started_presentation: {
      description: 'A presentation began from an OpenID4VP request URI (decisions §10).',
      on: {
        'exchange.hop': [hop('resolved', ['request_object']), anyHop],
        'exchange.presented': presented,
        'exchange.credential_stored': storedAgain,
        'exchange.failed': failed,
      },
    },
    resolved: {
      description: 'The request object was fetched and checked (OpenID4VP 1.0 §5.10).',
      on: {
        'exchange.hop': anyHop,
        'exchange.credential_stored': storedAgain,
        'exchange.presented': presented,
        'exchange.failed': failed,
      },
    },
    presented: { type: 'final', description: 'The verifier accepted the response.' },
    failed: { type: 'final', description: 'A step failed; nothing more happens in this exchange.' },
  },
});
