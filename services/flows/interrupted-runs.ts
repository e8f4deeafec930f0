import { flowRunStates, type flowRunMachine } from '../../machines/flow-run.ts';
import type { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';
import type { InstanceLiveness } from '../instances.ts';

/** A run from before instances were recorded, silent this long on a shared log, was left by one that stopped. */
const ABANDONED_RUN_MS = 10 * 60_000;

/**
 * Runs whose runner died with its process: a run under way (running, paused in step mode, waiting for
 * the person) lives in the memory of the instance that started it, with what it holds (the paused
 * request, a target's secret). When that instance is gone, the run ends as `interrupted`, its reason
 * recorded, as soon as any instance meets it: at start, or when it is read or commanded.
 */
export class AbandonedRuns {
  constructor(
    private readonly log: EventLog,
    private readonly actors: ActorRuntime<typeof flowRunMachine>,
    private readonly clock: Clock,
    private readonly liveness: InstanceLiveness,
  ) {}

  /** Why run `id` can only end, or undefined while its instance may still hold it. */
  private async abandoned(id: string, atStart: boolean): Promise<string | undefined> {
    const { snapshot, version } = await this.actors.get(id);
    if (version === 0 || !flowRunStates.underWay(snapshot)) return undefined;
    const instance = snapshot.context.instance;
    if (instance === this.liveness.self) return undefined;
    if (instance !== undefined)
      return (await this.liveness.alive(instance))
        ? undefined
        : `The instance that held this run (${instance}) stopped; its runner and what it held in memory are gone`;
    // Recorded before instances were: met at start, or on a shared log after a long silence.
    if (!atStart) return undefined;
    if (!this.log.shared) return 'The service stopped while this run was under way';
    const last = (await this.log.readStream(`run:${id}`)).at(-1)?.at ?? 0;
    return this.clock.now() - last >= ABANDONED_RUN_MS ? 'The service stopped while this run was under way' : undefined;
  }

  /** Ends run `id` as interrupted when its instance is gone; answers whether it did. */
  async settle(id: string, atStart = false): Promise<boolean> {
    const reason = await this.abandoned(id, atStart);
    if (!reason) return false;
    const outcome = await this.actors.execute(id, { type: 'run.interrupted', at: this.clock.now(), reason });
    return outcome.accepted;
  }

  /** Closes every run a stopped instance left under way; once, at start, before requests are served. */
  async settleAll(): Promise<number> {
    let closed = 0;
    for (const stream of await this.log.streamIds('run:'))
      if (await this.settle(stream.slice('run:'.length), true)) closed += 1;
    return closed;
  }
}
