import type { AnyStateMachine } from 'xstate';
import { MACHINES_BY_STREAM_PREFIX } from '../../machines/index.ts';

type Guard = (...args: unknown[]) => boolean;

/**
 * The planted bug of a test build: replaces one named guard of one machine, for this process, by
 * its negation. Every actor of that kind then decides with it, exactly as a real slip in the guard
 * would, which is what the model-based tester (`npm run model-test -- --invert-guard …`) must find.
 * Throws when the machine or the guard does not exist, so a typo cannot pass for a clean run.
 */
export function invertGuard(
  machineId: string,
  guardName: string,
  machines: Iterable<AnyStateMachine> = Object.values(MACHINES_BY_STREAM_PREFIX),
): void {
  const machine = [...machines].find((m) => m.id === machineId);
  if (!machine) throw new Error(`no machine "${machineId}" to invert a guard of`);
  const guards = machine.implementations.guards as Record<string, Guard>;
  const original = Object.hasOwn(guards, guardName) ? guards[guardName] : undefined;
  if (!original) throw new Error(`machine "${machineId}" has no guard "${guardName}"`);
  guards[guardName] = (...args) => !original(...args);
}
