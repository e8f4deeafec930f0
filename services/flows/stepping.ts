import type { flowRunMachine, NextRequest } from '../../machines/flow-run.ts';
import type { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { oauthError } from '../errors.ts';
import type { RequestGate } from './capture.ts';
import { preparatoryExplanation } from './preparatory.ts';
import { applyEdit, type PendingRequest, type RequestEdit } from './request-edit.ts';

/** A paused run left alone this long ends as `expired`. */
export const PAUSE_LIMIT_MS = 10 * 60_000;

type StepCommand =
  | { kind: 'step'; edit?: RequestEdit; edits: string[] }
  | { kind: 'continue' }
  | { kind: 'cancel' }
  | { kind: 'expire' };

/** Ends a stepped run from inside its runner (cancelled or expired); not a flow failure. */
export class RunEnded extends Error {}

interface Waiting {
  request: PendingRequest;
  pausedAt: number;
  resume(command: StepCommand): void;
}

/**
 * Step mode (docs/flows.md): before each request of a stepped run, the runner appends `run.paused`
 * with the request it will send, and waits here until the learner steps, continues or cancels, or the
 * pause lapses. Waiting runners live in this process; their streams say where each run stands.
 */
export class RunStepper {
  private readonly waiting = new Map<string, Waiting>();
  private readonly continuing = new Set<string>();
  /** Who waits for a run's next stop (a pause or its end). */
  private readonly watchers = new Map<string, Array<() => void>>();

  constructor(
    private readonly actors: ActorRuntime<typeof flowRunMachine>,
    private readonly clock: Clock,
    private readonly redact: (value: unknown) => unknown,
  ) {}

  /** The gate of run `id`: pauses before each request until told what to do. */
  gate(id: string, explain: (step: string) => string | undefined): RequestGate {
    return async (request) => {
      if (this.continuing.has(id)) return undefined;
      const at = this.clock.now();
      // Every pause explains itself: the flow's step, or what the runner's own request is for.
      const explanation = explain(request.step) ?? preparatoryExplanation(request.step, request.method, request.url);
      await this.actors.execute(id, {
        type: 'run.paused',
        at,
        next_request: this.redact(nextRequestOf(request)) as NextRequest,
        ...(explanation ? { explanation } : {}),
      });
      const command = await new Promise<StepCommand>((resume) => {
        this.waiting.set(id, { request, pausedAt: at, resume });
        this.stopped(id);
      });
      this.waiting.delete(id);
      const now = this.clock.now();
      switch (command.kind) {
        case 'step':
          await this.actors.execute(id, {
            type: 'run.stepped',
            at: now,
            ...(command.edits.length ? { edits: this.redact(command.edits) as string[] } : {}),
          });
          return command.edit;
        case 'continue':
          this.continuing.add(id);
          await this.actors.execute(id, { type: 'run.continued', at: now });
          return undefined;
        case 'cancel':
        case 'expire':
          await this.actors.execute(id, { type: command.kind === 'cancel' ? 'run.cancelled' : 'run.expired', at: now });
          throw new RunEnded(command.kind);
      }
    };
  }

  /** The run has ended: whoever waits for its next stop hears of it. */
  ended(id: string): void {
    this.continuing.delete(id);
    this.stopped(id);
  }

  /** Whether this process holds run `id` paused (another instance of the deployment may hold it instead). */
  holds(id: string): boolean {
    return this.waiting.has(id);
  }

  /**
   * Tells a paused run what to do and settles once it has paused again or ended. A step's edit is
   * checked against the waiting request first, so a bad edit is refused and the run keeps waiting.
   */
  async command(
    id: string,
    command: { kind: 'step'; edit?: RequestEdit } | { kind: 'continue' | 'cancel' | 'expire' },
  ) {
    const waiting = this.waiting.get(id);
    if (!waiting) throw oauthError('invalid_request:conflict', 'This run is paused by another instance of the service');
    const resolved: StepCommand =
      command.kind === 'step'
        ? {
            kind: 'step',
            edit: command.edit,
            edits: command.edit ? applyEdit(waiting.request, command.edit).edits : [],
          }
        : command;
    const stop = this.nextStop(id);
    waiting.resume(resolved);
    await stop;
  }

  /** Ends every run of this process paused for PAUSE_LIMIT_MS or more; answers how many. */
  async expireIdle(): Promise<number> {
    const now = this.clock.now();
    const idle = [...this.waiting].filter(([, w]) => now - w.pausedAt >= PAUSE_LIMIT_MS).map(([id]) => id);
    for (const id of idle) await this.command(id, { kind: 'expire' });
    return idle.length;
  }

  /** Settles when run `id` next pauses or ends; call before telling it to move. */
  nextStop(id: string): Promise<void> {
    return new Promise((resolve) => this.watchers.set(id, [...(this.watchers.get(id) ?? []), resolve]));
  }

  /** Run `id` has stopped (paused, waiting for a person, or ended): whoever waits for that hears of it. */
  stopped(id: string): void {
    const watchers = this.watchers.get(id) ?? [];
    this.watchers.delete(id);
    for (const notify of watchers) notify();
  }
}

function nextRequestOf(request: PendingRequest): NextRequest {
  return {
    step: request.step,
    method: request.method,
    url: request.url,
    headers: request.headers,
    ...(request.form ? { body: request.form } : request.json !== undefined ? { body: request.json } : {}),
  };
}
