import { type flowRunMachine, flowRunStates } from '../../machines/flow-run.ts';
import type { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { EventLog } from '../event-log.ts';

/** A run with no event for this long on a shared log was left by an instance that stopped. */
const ABANDONED_RUN_MS = 10 * 60_000;

/**
 * Closes runs that a stopped process left under way: each gets `run.interrupted`, so its status is
 * final and its event stream ends. Called once at start, before requests are served; on a shared log
 * only runs silent for ABANDONED_RUN_MS (another instance may be running the others).
 */
export async function interruptUnfinishedRuns(
  log: EventLog,
  actors: ActorRuntime<typeof flowRunMachine>,
  clock: Clock,
): Promise<number> {
  let closed = 0;
  for (const stream of await log.streamIds('run:')) {
    const id = stream.slice('run:'.length);
    const { snapshot } = await actors.get(id);
    if (!flowRunStates.underWay(snapshot)) continue;
    // On a log other instances share, a run that moved recently belongs to a live instance.
    if (log.shared && clock.now() - ((await log.readStream(stream)).at(-1)?.at ?? 0) < ABANDONED_RUN_MS) continue;
    await actors.execute(id, {
      type: 'run.interrupted',
      at: clock.now(),
      reason: 'The service stopped while this run was under way',
    });
    closed += 1;
  }
  return closed;
}
