import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * The workload identity service's mode (spec section 3): demo until a Workload API agent is reachable
 * (and full mode is enabled), full while it answers, back to demo when it goes away. Attempts are
 * retried with a backoff that the machine computes from the failures so far.
 */
export type SpiffeModeEvent =
  | { type: 'mode.connect_requested'; at: number; socketPath: string }
  | { type: 'mode.connected'; at: number; spiffeId?: string }
  | { type: 'mode.connect_failed'; at: number; reason: string }
  | { type: 'mode.agent_lost'; at: number; reason: string };

export interface SpiffeModeContext {
  socketPath?: string;
  failures: number;
  lastError?: string;
  /** When the next attempt is due (epoch ms), after a failure. */
  retryAt?: number;
  connectedAt?: number;
  spiffeId?: string;
}

const RETRY_BASE_MS = 1_000;
export const RETRY_MAX_MS = 60_000;
export const backoff = (failures: number) => Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, failures - 1));

type E<T extends SpiffeModeEvent['type']> = Extract<SpiffeModeEvent, { type: T }>;

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const spiffeModeUpdates = {
  recordSocket: (_: SpiffeModeContext, event: E<'mode.connect_requested'>) => ({ socketPath: event.socketPath }),
  recordConnection: (_: SpiffeModeContext, event: E<'mode.connected'>) => ({
    failures: 0,
    lastError: undefined,
    retryAt: undefined,
    connectedAt: event.at,
    spiffeId: event.spiffeId,
  }),
  /** A failed attempt backs off exponentially (RETRY_BASE_MS doubling, at most RETRY_MAX_MS). */
  recordFailure: (context: SpiffeModeContext, event: E<'mode.connect_failed'>) => ({
    failures: context.failures + 1,
    lastError: event.reason,
    retryAt: event.at + backoff(context.failures + 1),
  }),
  recordLoss: (_: SpiffeModeContext, event: E<'mode.agent_lost'>) => ({
    lastError: event.reason,
    failures: 1,
    retryAt: event.at + backoff(1),
    connectedAt: undefined,
  }),
} satisfies Record<string, ContextUpdate<SpiffeModeContext>>;

export const spiffeModeMachine = setup({
  types: { context: {} as SpiffeModeContext, events: {} as SpiffeModeEvent },
  actions: updateActions<SpiffeModeContext, SpiffeModeEvent, typeof spiffeModeUpdates>(spiffeModeUpdates),
}).createMachine({
  id: 'spiffeMode',
  description:
    "The workload identity service's mode (service spec §3, Workload identity service modes; decisions §7), stream spiffe-mode:<id>.",
  initial: 'demo',
  context: { failures: 0 },
  states: {
    demo: {
      description:
        'Demo mode: SPIFFE endpoints answer 503 temporarily_unavailable; a failed connection is retried with backoff (service spec §3 row "demo mode").',
      on: {
        'mode.connect_requested': {
          description:
            'Start with SHOWCASE_SPIFFE_ENABLED=true, or a retry after backoff (service spec §3, decisions §7).',
          target: 'connecting',
          actions: 'recordSocket',
        },
      },
    },
    connecting: {
      description: 'Dialling the SPIFFE Workload API on the agent socket.',
      on: {
        'mode.connected': {
          description: 'The agent socket answered: SVIDs come from the workload agent (service spec §3 → full mode).',
          target: 'full',
          actions: 'recordConnection',
        },
        'mode.connect_failed': {
          description: 'The socket is unreachable: demo mode, with an exponential retry.',
          target: 'demo',
          actions: 'recordFailure',
        },
      },
    },
    full: {
      description:
        'Full mode: SVID endpoints are backed by the workload agent (service spec §3 row "demo mode" → full mode).',
      on: {
        'mode.agent_lost': {
          description: 'The Workload API stream ended: back to demo mode until a reconnection.',
          target: 'demo',
          actions: 'recordLoss',
        },
      },
    },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const spiffeModeStates = {
  /** Connected to a SPIFFE Workload API. */
  full: inState('full'),
};
