import { flowRunMachine, flowRunStates, type RecordedExchange } from '../../machines/flow-run.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { Catalog, FlowStep } from '../content/catalog.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import { invalidRequest, notFound, oauthError } from '../errors.ts';
import type { EventLog, StoredEvent } from '../event-log.ts';
import { HttpCapture, type HttpTransport, type RequestGate } from './capture.ts';
import { redactor } from './redact.ts';
import { FlowFailure, type FlowRunner, type FlowRunners } from './registry.ts';
import { targetContext, targetFor, targetOrigin, type AnyTarget } from './targets/target.ts';
import { TargetWaits, type TargetDeps } from './targets/waits.ts';
import type { RequestEdit } from './request-edit.ts';
import { requireRunToken, runReadableWith } from './run-access.ts';
import { AbandonedRuns } from './interrupted-runs.ts';
import type { InstanceLiveness } from '../instances.ts';
import type { ClientPlaces } from '../places/client-places.ts';
import { runView, type RunView } from './run-view.ts';
import { PAUSE_LIMIT_MS, RunEnded, RunStepper } from './stepping.ts';

export type { RunView } from './run-view.ts';

/**
 * Executes catalog flows for real over HTTP against the origin and keeps each run as the event stream
 * `run:<id>`. The caller of POST gets the full capture; the log (and GET) keeps secrets redacted.
 */
export class FlowRuns {
  readonly actors: ActorRuntime<typeof flowRunMachine>;
  readonly stepper: RunStepper;
  /** Targeted runs: the per-client limit and the runs waiting for a person. */
  readonly waits: TargetWaits;
  /** What the log keeps of a value: its secrets as keyed fingerprints. */
  private readonly redact: (value: unknown) => unknown;
  private readonly abandoned: AbandonedRuns;

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
      /** Runs against an authorization server of the user's own, through the outbound guard. */
      targets?: TargetDeps;
      /** The server secret that keys every fingerprint of a redacted secret. */
      fingerprintKey: Uint8Array;
      /** Which instances run: a run whose instance is gone ends as interrupted. */
      liveness: InstanceLiveness;
      /** Per-caller limits decided in the log: targeted runs per address. */
      places: ClientPlaces;
    },
  ) {
    this.redact = redactor(deps.fingerprintKey);
    this.actors = ActorRuntime.of(log, flowRunMachine, 'run', 1_000);
    this.stepper = new RunStepper(this.actors, deps.clock, this.redact);
    this.abandoned = new AbandonedRuns(log, this.actors, deps.clock, deps.liveness);
    this.waits = new TargetWaits(
      this.actors,
      deps.clock,
      this.stepper,
      `${deps.base}/runs/callback`,
      this.redact,
      deps.places,
      (runId) => this.abandoned.settle(runId),
    );
  }

  executable(protocol: string, flow: string): boolean {
    return this.runners.has(protocol, flow);
  }

  /** Whether the flow can run against a learner's own server (`target`). */
  targetable(protocol: string, flow: string): boolean {
    return this.deps.targets?.runners.has(protocol, flow) ?? false;
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
    /** The caller's address: targeted runs are limited per client. */
    client = '',
  ): Promise<{ id: string; done: Promise<RunView>; runToken?: string; firstStop: Promise<void>; targeted: boolean }> {
    if (!this.catalog.protocol(protocol)) throw notFound(`No protocol "${protocol}"`);
    const flow = this.catalog.flow(protocol, flowId);
    if (!flow) throw notFound(`No flow "${flowId}" in ${protocol}`);
    // SCIM flows take a service provider (`{base_url, token}`); the others an authorization server.
    const target = targetFor(protocol, options.target);
    const runner = target ? this.deps.targets?.runners.get(protocol, flowId) : this.runners.get(protocol, flowId);
    if (!runner && target) throw invalidRequest(`${protocol}/${flowId} cannot run against a target of your own`);
    if (!runner)
      throw oauthError('flow_not_executable', `${protocol}/${flowId} is described but cannot be run in this build`);
    const id = randomToken(12);
    if (target) await this.waits.admit(client, id, () => this.deps.targets!.admit(targetOrigin(target)));
    const { mode, ...runOptions } = options;
    // A 128-bit capability, shown once and kept only as its hash: step mode's controls, and the only
    // way to read a targeted run (services/flows/run-access.ts).
    const stepped = mode === 'step';
    const runToken = stepped || target ? randomToken(16) : undefined;
    const startedAt = this.deps.clock.now();
    await this.actors
      .create(id, {
        type: 'run.started',
        at: startedAt,
        protocol,
        flow: flowId,
        options: this.redact(runOptions) as Record<string, unknown>,
        ...(stepped ? { mode: 'step' as const } : {}),
        ...(runToken ? { run_token_hash: sha256(runToken) } : {}),
        instance: this.deps.liveness.self,
      })
      .catch(async (error: unknown) => {
        if (target) await this.waits.end(client, id);
        throw error;
      });
    const firstStop = this.stepper.nextStop(id);
    // A runner's step is named after the flow's step it performs ("Token request (client_secret_basic)").
    const explain = (name: string) =>
      flow.steps.find((s) => s.name === name || name.toLowerCase().startsWith(s.name.toLowerCase()))?.description;
    const gate = stepped ? this.stepper.gate(id, explain) : undefined;
    const done = this.execute({ id, steps: flow.steps, runner, options: runOptions, gate, target, client }).finally(
      // A place not given back (the log failing here) lapses when next counted: the run has ended.
      () => (target ? this.waits.end(client, id).catch(() => undefined) : undefined),
    );
    return { id, done, firstStop, targeted: target !== undefined, ...(runToken ? { runToken } : {}) };
  }

  private async execute(run: {
    id: string;
    steps: FlowStep[];
    runner: FlowRunner;
    options: Record<string, unknown>;
    gate?: RequestGate;
    target?: AnyTarget;
    /** The address that started the run ('' when unknown). */
    client: string;
  }): Promise<RunView> {
    const { id, steps, runner, options, gate, target, client } = run;
    // A targeted run talks to the user's server through the outbound guard, never with our internal header.
    const internal =
      !target && this.deps.internal
        ? { origin: new URL(this.deps.base).origin, ...this.deps.internal, ...(client ? { onBehalfOf: client } : {}) }
        : undefined;
    const http = new HttpCapture(
      target ? this.deps.targets!.transport : this.deps.transport,
      async (exchange) => {
        await this.actors.execute(id, {
          type: 'run.exchange_recorded',
          at: this.deps.clock.now(),
          ...(this.redact(exchange) as RecordedExchange),
        });
      },
      internal,
      gate,
    );
    let status: 'succeeded' | 'failed' = 'succeeded';
    let ended = false;
    let error: string | undefined;
    try {
      await runner({
        base: this.deps.base,
        http,
        wait: this.deps.wait,
        nowS: () => Math.floor(this.deps.clock.now() / 1000),
        options,
        ...(target ? targetContext(target) : {}),
        check: async (result) => {
          await this.actors.execute(id, { type: 'run.check_recorded', at: this.deps.clock.now(), ...result });
        },
        callbackUrl: this.waits.callbackUrl,
        awaitUser: (authorizationUrl, state) => this.waits.awaitUser(id, authorizationUrl, state),
      });
    } catch (e) {
      // A cancelled or expired stepped run has ended already, in its own event.
      if (e instanceof RunEnded) ended = true;
      status = 'failed';
      error = e instanceof FlowFailure ? e.message : `The flow stopped: ${(e as Error).message}`;
    }
    const finishedAt = this.deps.clock.now();
    if (!ended)
      await this.actors.execute(id, { type: 'run.finished', at: finishedAt, status, ...(error ? { error } : {}) });
    this.stepper.ended(id);
    // The caller that ran the flow gets the full capture; the log keeps it redacted.
    const logged = this.fold(id, await this.log.readStream(`run:${id}`));
    return { ...logged, steps, exchanges: http.exchanges, tokens: http.tokens };
  }

  /** Closes runs that a stopped instance left under way (interrupted-runs.ts); once, at start. */
  interruptUnfinished(): Promise<number> {
    return this.abandoned.settleAll();
  }

  /** `{base}/runs/callback`: the person is back from the target; answers the run that waited for them. */
  userReturned(params: URLSearchParams): string {
    return this.waits.userReturned(params);
  }

  /**
   * What starting a run answers: the finished run; or, for a run that stops on its way (step mode, or a
   * target's sign-in), the run as it stands then; with its token in step mode and for a targeted run.
   */
  async answer(launched: Awaited<ReturnType<FlowRuns['launch']>>): Promise<RunView & { run_token?: string }> {
    if (!launched.runToken) return launched.done;
    void launched.done.catch(() => undefined);
    await launched.firstStop;
    return { ...(await this.view(launched.id))!, run_token: launched.runToken };
  }

  /** Whether run `id` exists and these tokens may read it (run-access.ts); false for an unknown run. */
  async readable(id: string, tokens: readonly string[]): Promise<boolean> {
    const { snapshot, version } = await this.actors.get(id);
    return version > 0 && runReadableWith(snapshot.context, tokens);
  }

  /** Run `id` as this reader may see it: undefined when it does not exist or they may not read it. */
  async viewFor(id: string, tokens: readonly string[]): Promise<RunView | undefined> {
    return (await this.readable(id, tokens)) ? this.view(id) : undefined;
  }

  /**
   * Step mode's controls (docs/flows.md): with the run's token, tell a paused run to step (the edit
   * applied first), continue or cancel; answers the run once it has paused again or ended.
   */
  async control(
    id: string,
    authorization: string | undefined,
    command: { kind: 'step'; edit?: RequestEdit } | { kind: 'continue' | 'cancel' },
  ): Promise<RunView> {
    const { snapshot, version } = await this.actors.get(id);
    if (version === 0) throw notFound('No such run');
    requireRunToken(snapshot.context, authorization);
    if (await this.abandoned.settle(id))
      throw oauthError('invalid_request:conflict', 'The run is interrupted: the instance that held it stopped');
    if (flowRunStates.paused(snapshot) && this.expired(snapshot.context.pausedAt)) {
      await this.expire(id);
      throw oauthError('invalid_request:conflict', 'The run is expired, not paused');
    }
    if (!flowRunStates.paused(snapshot))
      throw oauthError('invalid_request:conflict', `The run is ${String(snapshot.value)}, not paused`);
    await this.stepper.command(id, command);
    return (await this.view(id))!;
  }

  /** Ends paused runs left alone for 10 minutes (this process's, and any other met while reading). */
  async expireIdle(): Promise<number> {
    return (await this.stepper.expireIdle()) + this.waits.expireIdle();
  }

  private expired(pausedAt: number | undefined): boolean {
    return pausedAt !== undefined && this.deps.clock.now() - pausedAt >= PAUSE_LIMIT_MS;
  }

  /** Ends a paused run as expired; answers true (the run has ended). */
  private async expire(id: string): Promise<true> {
    if (this.stepper.holds(id)) await this.stepper.command(id, { kind: 'expire' });
    else await this.actors.execute(id, { type: 'run.expired', at: this.deps.clock.now() });
    return true;
  }

  /** A run as the log holds it (secrets redacted), or undefined. */
  async view(id: string): Promise<RunView | undefined> {
    let events = await this.log.readStream(`run:${id}`);
    if (events.length === 0) return undefined;
    const last = events.at(-1)!;
    // A run read after its pause lapsed, or whose instance is gone, is ended first: nobody sees it under way for ever.
    const ended =
      (await this.abandoned.settle(id)) ||
      (last.type === 'run.paused' && this.expired(last.at) && (await this.expire(id))) ||
      (last.type === 'run.awaiting_user' && (await this.waits.expireIfLapsed(id, last.at)));
    if (ended) events = await this.log.readStream(`run:${id}`);
    return this.fold(id, events);
  }

  fold(id: string, events: StoredEvent[]): RunView {
    const started = events[0].data as { protocol: string; flow: string };
    const view = runView(id, events, this.catalog.flow(started.protocol, started.flow)?.steps ?? []);
    // A run against an authorization server names the redirect URI to register there.
    return view.target && 'issuer' in view.target ? { ...view, redirect_uri: this.waits.callbackUrl } : view;
  }

  /** Calls `listener` with each event of run `id` committed from now on; returns an unsubscribe. */
  follow(id: string, listener: (event: StoredEvent) => void): () => void {
    const stream = `run:${id}`;
    return this.log.onCommit((events) => {
      for (const e of events) if (e.streamId === stream) listener(e);
    });
  }
}
