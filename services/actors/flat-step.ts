import type { AnyActorScope, AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject } from 'xstate';

/**
 * A transition of a flat machine, taken without xstate's general microstep algorithm.
 *
 * Most of the project's machines are flat: atomic and final states directly under the root, no entry
 * or exit actions, no eventless, delayed or invoked behaviour, and transitions whose only actions are
 * `assign`. For such a machine a transition is: the enabled transition xstate selects
 * (`getTransitionData`, which also evaluates the guards), the context its assigners produce, and the
 * snapshot of the target state with that context. The target's snapshot is resolved once per state
 * (`resolveState`) and copied with the new context after that: xstate snapshots are plain objects
 * whose methods are shared, so a copy is the snapshot xstate would build, at a fifth of the cost.
 * Anything outside that shape returns undefined and is left to xstate; the property test in
 * test/property/actors/step.test.ts holds this path to xstate's `transition` for every machine.
 *
 * Kept under issue 46 §5's rule (a shadow stays only where the library costs a user-facing figure more
 * than 10%): `npm run bench core` on 2026-11-29 folds 12,724 events/s through xstate's public
 * `transition` in memory, while replay through this path, reading SQLite and parsing included, does
 * 23,935 events/s (x1.88); on xstate's `transition` replay and restart would lose about half.
 */

type Assigner = (args: Record<string, unknown>, params: unknown) => Record<string, unknown>;
interface AssignAction {
  type: 'xstate.assign';
  assignment: Assigner | Record<string, unknown>;
}

const flatness = new WeakMap<AnyStateMachine, boolean>();
/** Per machine, each state's snapshot as `resolveState` builds it (with an empty context). */
const resolvedStates = new WeakMap<AnyStateMachine, Map<string, AnyMachineSnapshot>>();

/** The snapshot of state `value` with `context`, children and history carried over from `from`. */
function snapshotAt<S extends AnyMachineSnapshot>(
  machine: AnyStateMachine,
  value: string,
  context: Record<string, unknown>,
  from: S,
): S {
  let states = resolvedStates.get(machine);
  if (!states) resolvedStates.set(machine, (states = new Map()));
  let resolved = states.get(value);
  if (!resolved) {
    resolved = machine.resolveState({ value, context: {} } as never) as AnyMachineSnapshot;
    // Reaching a final state, xstate leaves the state nodes in reverse document order (it sorts them so for the exit actions).
    if (resolved.status === 'done')
      resolved = {
        ...resolved,
        _nodes: [...resolved._nodes].sort((a, b) => b.order - a.order),
      } as AnyMachineSnapshot;
    states.set(value, resolved);
  }
  return { ...resolved, context, children: from.children, historyValue: from.historyValue } as S;
}

const isAssign = (action: unknown): action is AssignAction =>
  typeof action === 'function' && (action as { type?: unknown }).type === 'xstate.assign';

/** Atomic and final states under a root with no output, and no state that acts on entry or exit or on its own. */
function isFlat(machine: AnyStateMachine): boolean {
  let flat = flatness.get(machine);
  if (flat === undefined) {
    const root: AnyStateNode = machine.root;
    const quiet = (node: AnyStateNode) =>
      node.entry.length === 0 &&
      node.exit.length === 0 &&
      node.invoke.length === 0 &&
      (node.always?.length ?? 0) === 0 &&
      node.after.length === 0;
    flat =
      quiet(root) &&
      root.output === undefined &&
      Object.values(root.states).every((node) => (node.type === 'atomic' || node.type === 'final') && quiet(node));
    flatness.set(machine, flat);
  }
  return flat;
}

/** The assign action an action reference names, or undefined for anything else (left to xstate). */
function assignActionOf(machine: AnyStateMachine, action: unknown): AssignAction | undefined {
  if (typeof action === 'string') {
    const implementation = (machine.implementations.actions as Record<string, unknown>)[action];
    return isAssign(implementation) ? implementation : undefined;
  }
  return isAssign(action) ? action : undefined;
}

/** The context after an assign action, as xstate computes it (a shallow merge of the partial update). */
function assigned(
  action: AssignAction,
  context: Record<string, unknown>,
  event: EventObject,
  scope: AnyActorScope,
): Record<string, unknown> {
  const args = { context, event, self: scope.self, system: scope.system, spawn: noSpawn };
  const { assignment } = action;
  let update: Record<string, unknown>;
  if (typeof assignment === 'function') update = assignment(args, undefined);
  else {
    update = {};
    for (const key of Object.keys(assignment)) {
      const value = assignment[key];
      update[key] = typeof value === 'function' ? (value as Assigner)(args, undefined) : value;
    }
  }
  return Object.assign({}, context, update);
}

function noSpawn(): never {
  throw new Error('a flat machine step cannot spawn actors');
}

/**
 * The next snapshot of a flat machine, or undefined when this step is not one the fast path takes
 * (the caller then asks xstate). With no enabled transition the snapshot itself is returned, as
 * xstate does.
 */
export function flatStep<S extends AnyMachineSnapshot>(
  machine: AnyStateMachine,
  snapshot: S,
  event: EventObject,
  scope: AnyActorScope,
): S | undefined {
  if (
    snapshot.status !== 'active' ||
    typeof snapshot.value !== 'string' ||
    event.type.startsWith('xstate.') ||
    !isFlat(machine)
  )
    return undefined;
  const enabled = machine.getTransitionData(snapshot, event);
  if (enabled.length === 0) return snapshot;
  if (enabled.length > 1) return undefined;
  const [transition] = enabled;
  const target = transition.target;
  if (target && (target.length !== 1 || target[0].parent !== machine.root)) return undefined;
  let context = snapshot.context as Record<string, unknown>;
  for (const reference of transition.actions) {
    const action = assignActionOf(machine, reference);
    if (!action) return undefined;
    context = assigned(action, context, event, scope);
  }
  return snapshotAt(machine, target ? target[0].key : snapshot.value, context, snapshot);
}
