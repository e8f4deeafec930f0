import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * One execution of a catalog flow: started, then one recorded exchange per HTTP hop, then finished
 * (or interrupted, when the process stopped before the run could finish).
 * The log keeps the exchanges with secrets redacted.
 */
export interface RecordedExchange {
  step: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body?: unknown };
  duration_ms: number;
  annotations: string[];
  /**
   * JWTs met in the exchange (request and response), decoded: header and claims, the signature removed
   * and marked so (`signature: "removed"`), an SD-JWT's disclosures as [name, value]. Not replayable.
   */
  tokens?: Array<{
    name: string;
    header: Record<string, unknown>;
    payload: Record<string, unknown>;
    signature?: 'removed';
    disclosures?: unknown[][];
  }>;
}

export type FlowRunEvent =
  | { type: 'run.started'; at: number; protocol: string; flow: string; options: Record<string, unknown> }
  | ({ type: 'run.exchange_recorded'; at: number } & RecordedExchange)
  | { type: 'run.finished'; at: number; status: 'succeeded' | 'failed'; error?: string }
  /** The process stopped while the run was under way; appended when the service starts again. */
  | { type: 'run.interrupted'; at: number; reason: string };

export interface FlowRunContext {
  protocol?: string;
  flow?: string;
  options?: Record<string, unknown>;
  startedAt?: number;
  finishedAt?: number;
  exchanges: number;
  error?: string;
}

/** The arguments xstate gives a guard of this machine. */
type FlowRunGuardArgs = { context: FlowRunContext; event: FlowRunEvent };

/** The machine's guards: pure, named, importable on their own (time arrives in events). */
export const flowRunGuards = {
  /** The runner reached the flow's end. */
  succeeded: ({ event }: FlowRunGuardArgs) => event.type === 'run.finished' && event.status === 'succeeded',
};

type E<T extends FlowRunEvent['type']> = Extract<FlowRunEvent, { type: T }>;

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const flowRunUpdates = {
  recordStart: (_: FlowRunContext, event: E<'run.started'>) => ({
    protocol: event.protocol,
    flow: event.flow,
    options: event.options,
    startedAt: event.at,
  }),
  countExchange: (context: FlowRunContext) => ({ exchanges: context.exchanges + 1 }),
  recordEnd: (_: FlowRunContext, event: E<'run.finished'>) => ({ finishedAt: event.at }),
  recordFailure: (_: FlowRunContext, event: E<'run.finished'>) => ({ finishedAt: event.at, error: event.error }),
  recordInterruption: (_: FlowRunContext, event: E<'run.interrupted'>) => ({
    finishedAt: event.at,
    error: event.reason,
  }),
} satisfies Record<string, ContextUpdate<FlowRunContext>>;

export const flowRunMachine = setup({
  types: { context: {} as FlowRunContext, events: {} as FlowRunEvent },
  guards: flowRunGuards,
  actions: updateActions<FlowRunContext, FlowRunEvent, typeof flowRunUpdates>(flowRunUpdates),
}).createMachine({
  id: 'flowRun',
  description:
    'One run of a catalog flow (decisions §4), stream run:<id>: started, one recorded exchange per HTTP hop, then finished or interrupted.',
  initial: 'new',
  context: { exchanges: 0 },
  states: {
    new: {
      description: 'No run yet.',
      on: {
        'run.started': {
          description: 'POST /api/protocols/{id}/demo/{flow} (decisions §4).',
          target: 'running',
          actions: 'recordStart',
        },
      },
    },
    running: {
      description: 'A flow runner is sending its requests; each exchange is recorded.',
      on: {
        'run.exchange_recorded': {
          description: 'One HTTP exchange of the runner, secrets redacted (decisions §4).',
          actions: 'countExchange',
        },
        'run.finished': [
          {
            description: "The runner reached the flow's last step (decisions §4).",
            guard: 'succeeded',
            target: 'succeeded',
            actions: 'recordEnd',
          },
          {
            description: 'A step answered what the flow did not expect (decisions §4).',
            target: 'failed',
            actions: 'recordFailure',
          },
        ],
        'run.interrupted': {
          description: 'The process stopped mid-run; the next start closes the run (decisions §4).',
          target: 'interrupted',
          actions: 'recordInterruption',
        },
      },
    },
    succeeded: {
      type: 'final',
      description: 'The flow reached its end.',
    },
    interrupted: {
      type: 'final',
      description: 'The service stopped while the run was under way (closed at the next start).',
    },
    failed: {
      type: 'final',
      description: 'A step answered what the flow did not expect.',
    },
  },
});
