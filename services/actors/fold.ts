import {
  createActor,
  initialTransition,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
} from 'xstate';
import type { StoredEvent } from '../event-log.ts';
import { canonicalJson } from '../streams/canonical-json.ts';
import { flatStep } from './flat-step.ts';

const scopes = new WeakMap<AnyStateMachine, AnyActorScope>();

/**
 * An inert actor scope per machine, made once. xstate's `transition()` builds a fresh actor for every
 * call, which was most of the cost of a command; the machines here only assign context (no spawned
 * children, nothing sent or emitted), so nothing is ever written to the scope and one can serve all.
 */
function inertScope(machine: AnyStateMachine): AnyActorScope {
  let scope = scopes.get(machine);
  if (!scope) {
    const self = createActor(machine);
    const ignore = () => undefined;
    const inert: AnyActorScope = {
      self,
      system: self.system,
      id: '',
      sessionId: '',
      logger: ignore,
      defer: ignore,
      stopChild: ignore,
      emit: ignore,
      actionExecutor: ignore,
    };
    scopes.set(machine, (scope = inert));
  }
  return scope;
}

/**
 * The machine's pure transition (what xstate's `transition()` returns first), on a shared inert scope;
 * flat machines take the shorter path of `flatStep`, which gives the same snapshot.
 */
export function step<S extends AnyMachineSnapshot>(machine: AnyStateMachine, snapshot: S, event: EventObject): S {
  const scope = inertScope(machine);
  return flatStep(machine, snapshot, event, scope) ?? (machine.transition(snapshot, event, scope) as S);
}

/** A stored event back into the machine event that was accepted. */
export function toMachineEvent(e: Pick<StoredEvent, 'type' | 'at' | 'data'>): { type: string; at: number } {
  return { ...e.data, type: e.type, at: e.at };
}

/** Folds events through the machine's pure transition, from `from` or the initial state. */
export function fold(
  machine: AnyStateMachine,
  events: ReadonlyArray<Pick<StoredEvent, 'type' | 'at' | 'data'>>,
  from?: AnyMachineSnapshot,
): AnyMachineSnapshot {
  let snapshot = from ?? initialTransition(machine)[0];
  for (const e of events) snapshot = step(machine, snapshot, toMachineEvent(e));
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
