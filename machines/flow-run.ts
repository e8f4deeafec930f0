import { setup } from 'xstate';
import { inState } from './deciders.ts';
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
  /** Step mode: the learner changed the request before it was sent; `edits` says how (secrets redacted). */
  edited?: true;
  edits?: string[];
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
  /** SAML messages met in the exchange (URLs and forms), decoded to XML, signature values removed. */
  saml?: Array<{ where: string; field: string; binding: string; xml: string }>;
}

/** Whether an event's data has the shape of a recorded exchange (a step, a request and a response). */
const isRecordedExchange = (data: Record<string, unknown>): data is Record<string, unknown> & RecordedExchange =>
  typeof data.step === 'string' &&
  typeof data.request === 'object' &&
  data.request !== null &&
  typeof data.response === 'object' &&
  data.response !== null;

/** A stored `run.exchange_recorded` event's data as the exchange it records; anything else is refused. */
export function recordedExchangeOf(event: { data: Record<string, unknown> }): RecordedExchange {
  if (!isRecordedExchange(event.data)) throw new TypeError('a run.exchange_recorded event without its exchange');
  return event.data;
}

/** The request a paused run sends next, as its log shows it (secrets redacted). */
export interface NextRequest {
  step: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export type FlowRunEvent =
  | {
      type: 'run.started';
      at: number;
      protocol: string;
      flow: string;
      options: Record<string, unknown>;
      /** Step mode: the run pauses before each request. */
      mode?: 'step';
      /** The run's capability (step controls; reading a targeted run), kept only as a hash. */
      run_token_hash?: string;
      /** The instance whose memory holds the runner (services/instances.ts). */
      instance?: string;
    }
  /** Step mode: the runner waits before sending `next_request`. */
  | { type: 'run.paused'; at: number; next_request: NextRequest; explanation?: string }
  /** The learner sent the next request, perhaps edited. */
  | { type: 'run.stepped'; at: number; edits?: string[] }
  /** The learner let the run go on to its end without pausing. */
  | { type: 'run.continued'; at: number }
  | { type: 'run.cancelled'; at: number }
  /** Paused and left alone for 10 minutes. */
  | { type: 'run.expired'; at: number }
  /** A run against a target waits for a person to sign in there (`authorization_url`). */
  | { type: 'run.awaiting_user'; at: number; authorization_url: string }
  /** The person came back to `{base}/runs/callback`; the run goes on. */
  | { type: 'run.user_returned'; at: number }
  /** A targeted run judged one of the target's answers (docs/flows.md, the checks). */
  | {
      type: 'run.check_recorded';
      at: number;
      check: string;
      verdict: 'passed' | 'failed' | 'not_applicable';
      rule: string;
      detail: string;
    }
  | ({ type: 'run.exchange_recorded'; at: number } & RecordedExchange)
  | { type: 'run.finished'; at: number; status: 'succeeded' | 'failed'; error?: string }
  /** The process stopped while the run was under way; appended when the service starts again. */
  | { type: 'run.interrupted'; at: number; reason: string };

export interface FlowRunContext {
  protocol?: string;
  flow?: string;
  options?: Record<string, unknown>;
  mode?: 'step';
  runTokenHash?: string;
  /** The instance whose memory holds the runner: when it is gone, the run can only end as interrupted. */
  instance?: string;
  /** While paused: what is sent next, and since when the run waits. */
  nextRequest?: NextRequest;
  pausedAt?: number;
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
    ...(event.mode ? { mode: event.mode } : {}),
    ...(event.run_token_hash ? { runTokenHash: event.run_token_hash } : {}),
    ...(event.instance ? { instance: event.instance } : {}),
  }),
  recordPause: (_: FlowRunContext, event: E<'run.paused'>) => ({ nextRequest: event.next_request, pausedAt: event.at }),
  resume: () => ({ nextRequest: undefined, pausedAt: undefined }),
  recordEndOfPause: (_: FlowRunContext, event: E<'run.cancelled'> | E<'run.expired'>) => ({
    finishedAt: event.at,
    nextRequest: undefined,
  }),
  countExchange: (context: FlowRunContext) => ({ exchanges: context.exchanges + 1 }),
  recordEnd: (_: FlowRunContext, event: E<'run.finished'>) => ({ finishedAt: event.at }),
  recordFailure: (_: FlowRunContext, event: E<'run.finished'>) => ({ finishedAt: event.at, error: event.error }),
  recordInterruption: (_: FlowRunContext, event: E<'run.interrupted'>) => ({
    finishedAt: event.at,
    error: event.reason,
  }),
} satisfies Record<string, ContextUpdate<FlowRunContext>>;

/** A run that waits (paused, or for a person) when the process stops is closed at the next start. */
const interruptedWhileWaiting = {
  description: 'The process stopped while the run waited; the next start closes the run (decisions §4).',
  target: 'interrupted',
  actions: 'recordInterruption',
} as const;

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
        'run.check_recorded': {
          description:
            "A run against the user's own server judged one answer, a named check with the RFC it holds the server to (docs/flows.md).",
        },
        'run.awaiting_user': {
          description:
            'A run against your own server waits for a person to sign in at its authorization endpoint (docs/flows.md).',
          target: 'awaiting_user',
        },
        'run.paused': {
          description: 'Step mode: the runner waits before its next request (docs/flows.md, step mode).',
          target: 'paused',
          actions: 'recordPause',
        },
      },
    },
    paused: {
      description:
        'Step mode: waiting for the learner to step (send the next request, perhaps edited), continue or cancel; 10 minutes at most.',
      on: {
        'run.stepped': {
          description: 'POST /api/runs/{id}/step with the run token: the next request goes out, edited or not.',
          target: 'running',
          actions: 'resume',
        },
        'run.continued': {
          description: 'POST /api/runs/{id}/continue: the run goes on to its end without pausing.',
          target: 'running',
          actions: 'resume',
        },
        'run.cancelled': {
          description: 'POST /api/runs/{id}/cancel: the run ends here.',
          target: 'cancelled',
          actions: 'recordEndOfPause',
        },
        'run.expired': {
          description: 'Left paused for 10 minutes: the run ends (docs/flows.md, step mode).',
          target: 'expired',
          actions: 'recordEndOfPause',
        },
        'run.interrupted': interruptedWhileWaiting,
      },
    },
    awaiting_user: {
      description:
        'Waiting for the person to sign in at the target and come back to {base}/runs/callback; 10 minutes at most.',
      on: {
        'run.user_returned': {
          description:
            "GET {base}/runs/callback with the run's state: the authorization response arrived (RFC 6749 §4.1.2).",
          target: 'running',
        },
        'run.expired': {
          description: 'Nobody came back within 10 minutes (docs/flows.md).',
          target: 'expired',
          actions: 'recordEndOfPause',
        },
        'run.interrupted': interruptedWhileWaiting,
      },
    },
    cancelled: { type: 'final', description: 'Cancelled by the learner while paused.' },
    expired: { type: 'final', description: 'Left paused for 10 minutes.' },
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

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const flowRunStates = {
  /** Not finished: running, paused in step mode, or waiting for the person. */
  /** Paused in step mode, waiting for a command. */
  paused: inState('paused'),
  underWay: inState('running', 'paused', 'awaiting_user'),
};
