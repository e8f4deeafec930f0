import { initialTransition, transition } from 'xstate';
import { flowRunMachine, type RecordedExchange } from '../../machines/flow-run.ts';
import { toMachineEvent } from '../actors/fold.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { Catalog, FlowStep } from '../content/catalog.ts';
import { oauthError, notFound } from '../errors.ts';
import type { EventLog, StoredEvent } from '../event-log.ts';
import { randomToken } from '../crypto/random.ts';
import { HttpCapture, type DecodedToken, type HttpTransport } from './capture.ts';
import { redact } from './redact.ts';
import { FlowFailure, type FlowRunners } from './registry.ts';

export interface RunView {
  run_id: string;
  protocol: string;
  flow: string;
  status: 'running' | 'succeeded' | 'failed' | 'interrupted';
  started_at: string;
  finished_at?: string;
  error?: string;
  steps: FlowStep[];
  exchanges: RecordedExchange[];
  tokens: DecodedToken[];
  /** The run machine's position after each event of the stream, in order (what a replay shows). */
  machine: Array<{ sequence: number; event: string; state: string }>;
}

/** A run with no event for this long on a shared log was left by an instance that stopped. */
const ABANDONED_RUN_MS = 10 * 60_000;
/** Folds the stream through the run machine, one event at a time, noting where it stands after each. */
function machinePositions(events: readonly StoredEvent[]): RunView['machine'] {
  let [snapshot] = initialTransition(flowRunMachine);
  return events.map((e) => {
    [snapshot] = transition(flowRunMachine, snapshot, toMachineEvent(e) as never);
    return { sequence: e.sequence, event: e.type, state: String(snapshot.value) };
  });
}

const iso = (ms?: number) => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * Executes catalog flows for real over HTTP against the origin and keeps each run as the event stream
 * `run:<id>`. The caller of POST gets the full capture; the log (and GET) keeps secrets redacted.
 */
export class FlowRuns {
  readonly actors: ActorRuntime<typeof flowRunMachine>;

  constructor(
    private readonly log: EventLog,
    private readonly catalog: Catalog,
    readonly runners: FlowRunners,
    private readonly deps: {
      base: string;
      clock: Clock;
      wait(ms: number): Promise<void>;
      transport: HttpTransport;
      internal?: { header: string; value: string };
    },
  ) {
    this.actors = new ActorRuntime(log, flowRunMachine, 'run', 1_000);
  }

  executable(protocol: string, flow: string): boolean {
    return this.runners.has(protocol, flow);
  }

  /** Runs a flow to its end and returns the full capture. */
  async start(protocol: string, flowId: string, options: Record<string, unknown>): Promise<RunView> {
    return (await this.launch(protocol, flowId, options)).done;
  }

  /**
   * Records the start of a run and returns its id at once; `done` settles when the run has finished
   * (for clients that follow the run's event stream while it happens).
   */
  async launch(
    protocol: string,
    flowId: string,
    options: Record<string, unknown>,
  ): Promise<{ id: string; done: Promise<RunView> }> {
    if (!this.catalog.protocol(protocol)) throw notFound(`No protocol "${protocol}"`);
    const flow = this.catalog.flow(protocol, flowId);
    if (!flow) throw notFound(`No flow "${flowId}" in ${protocol}`);
    const runner = this.runners.get(protocol, flowId);
    if (!runner)
      throw oauthError('flow_not_executable', `${protocol}/${flowId} is described but cannot be run in this build`);
    const id = randomToken(12);
    const startedAt = this.deps.clock.now();
    await this.actors.create(id, {
      type: 'run.started',
      at: startedAt,
      protocol,
      flow: flowId,
      options: redact(options) as Record<string, unknown>,
    });
    return { id, done: this.execute(id, protocol, flowId, flow.steps, runner, options, startedAt) };
  }

  private async execute(
    id: string,
    protocol: string,
    flowId: string,
    steps: FlowStep[],
    runner: NonNullable<ReturnType<FlowRunners['get']>>,
    options: Record<string, unknown>,
    startedAt: number,
  ): Promise<RunView> {
    const internal = this.deps.internal && { origin: new URL(this.deps.base).origin, ...this.deps.internal };
    const http = new HttpCapture(
      this.deps.transport,
      async (exchange) => {
        await this.actors.execute(id, {
          type: 'run.exchange_recorded',
          at: this.deps.clock.now(),
          ...(redact(exchange) as RecordedExchange),
        });
      },
      internal,
    );
    let status: 'succeeded' | 'failed' = 'succeeded';
    let error: string | undefined;
    try {
      await runner({
        base: this.deps.base,
        http,
        wait: this.deps.wait,
        nowS: () => Math.floor(this.deps.clock.now() / 1000),
        options,
      });
    } catch (e) {
      status = 'failed';
      error = e instanceof FlowFailure ? e.message : `The flow stopped: ${(e as Error).message}`;
    }
    const finishedAt = this.deps.clock.now();
    await this.actors.execute(id, { type: 'run.finished', at: finishedAt, status, ...(error ? { error } : {}) });
    return {
      run_id: id,
      protocol,
      flow: flowId,
      status,
      started_at: iso(startedAt)!,
      finished_at: iso(finishedAt),
      ...(error ? { error } : {}),
      steps,
      exchanges: http.exchanges,
      tokens: http.tokens,
      machine: machinePositions(await this.log.readStream(`run:${id}`)),
    };
  }

  /**
   * Closes runs that a stopped process left under way: each gets `run.interrupted`, so its status
   * is final and its event stream ends. Called once at start, before requests are served; on a shared
   * log only runs silent for ABANDONED_RUN_MS (another instance may be running the others).
   */
  async interruptUnfinished(): Promise<number> {
    let closed = 0;
    for (const stream of await this.log.streamIds('run:')) {
      const id = stream.slice('run:'.length);
      const { snapshot } = await this.actors.get(id);
      if (!snapshot.matches('running')) continue;
      // On a log other instances share, a run that moved recently belongs to a live instance.
      if (
        this.log.shared &&
        this.deps.clock.now() - ((await this.log.readStream(stream)).at(-1)?.at ?? 0) < ABANDONED_RUN_MS
      )
        continue;
      await this.actors.execute(id, {
        type: 'run.interrupted',
        at: this.deps.clock.now(),
        reason: 'The service stopped while this run was under way',
      });
      closed += 1;
    }
    return closed;
  }

  /** A run as the log holds it (secrets redacted), or undefined. */
  async view(id: string): Promise<RunView | undefined> {
    const events = await this.log.readStream(`run:${id}`);
    if (events.length === 0) return undefined;
    return this.fold(id, events);
  }

  fold(id: string, events: StoredEvent[]): RunView {
    const started = events[0].data as { protocol: string; flow: string };
    const finished = events.find((e) => e.type === 'run.finished' || e.type === 'run.interrupted');
    const exchanges = events
      .filter((e) => e.type === 'run.exchange_recorded')
      .map((e) => e.data as unknown as RecordedExchange);
    return {
      run_id: id,
      protocol: started.protocol,
      flow: started.flow,
      status: !finished
        ? 'running'
        : finished.type === 'run.interrupted'
          ? 'interrupted'
          : (finished.data.status as 'succeeded' | 'failed'),
      started_at: iso(events[0].at)!,
      ...(finished ? { finished_at: iso(finished.at) } : {}),
      ...(finished?.data.error
        ? { error: String(finished.data.error) }
        : finished?.data.reason
          ? { error: String(finished.data.reason) }
          : {}),
      steps: this.catalog.flow(started.protocol, started.flow)?.steps ?? [],
      exchanges,
      tokens: exchanges.flatMap((x) => (x.tokens ?? []).map((t) => ({ ...t, step: x.step }))),
      machine: machinePositions(events),
    };
  }

  /** Calls `listener` with each event of run `id` committed from now on; returns an unsubscribe. */
  follow(id: string, listener: (event: StoredEvent) => void): () => void {
    const stream = `run:${id}`;
    return this.log.onCommit((events) => {
      for (const e of events) if (e.streamId === stream) listener(e);
    });
  }
}
