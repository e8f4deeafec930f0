import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import type { StoredEvent } from '../event-log.ts';

/** A stored event back into the machine event that was accepted. */
export function toMachineEvent(e: Pick<StoredEvent, 'type' | 'at' | 'data'>): { type: string; at: number } {
  return { ...e.data, type: e.type, at: e.at };
}

/** Folds events through the machine's pure transition, from `from` or the initial state. */
export function fold(machine: AnyStateMachine, events: readonly StoredEvent[], from?: AnyMachineSnapshot): AnyMachineSnapshot {
  let snapshot = from ?? initialTransition(machine)[0];
  for (const e of events) snapshot = transition(machine, snapshot, toMachineEvent(e))[0];
  return snapshot;
}

/** What is kept of a snapshot: enough to restore it exactly. */
export function persistedState(snapshot: AnyMachineSnapshot): { value: unknown; context: unknown } {
  return { value: snapshot.value, context: snapshot.context };
}

export function restore(machine: AnyStateMachine, state: unknown): AnyMachineSnapshot {
  const { value, context } = state as { value: never; context: never };
  return machine.resolveState({ value, context });
}

/** Compares two persisted states by their JSON form (what the log stores). */
export function sameState(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
