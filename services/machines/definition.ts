import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { machineVersion } from '../streams/machine-version.ts';

/** One transition of a machine as data. */
export interface TransitionData {
  event: string;
  /** The state it leads to; absent for a transition that stays (context only). */
  target?: string;
  guard?: string;
  /** The named context updates it applies, in order. */
  updates?: string[];
  description?: string;
}

interface StateData {
  type: 'atomic' | 'final' | 'compound' | 'parallel' | 'history';
  final: boolean;
  description?: string;
  on: TransitionData[];
}

/** A machine's definition, derived from the machine object (never written twice by hand). */
export interface MachineDefinition {
  id: string;
  version: string;
  initial: string;
  description?: string;
  states: Record<string, StateData>;
  /** Transitions of the root: taken in every state, final ones included. */
  on: TransitionData[];
  events: string[];
  guards: Array<{ name: string; description?: string }>;
  /** Every context update a transition names. */
  updates: string[];
}

/** A guard's name: its reference, or `inline` for an anonymous function. */
export function guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === 'string') return guard;
  if (guard && typeof guard === 'object' && typeof (guard as { type?: unknown }).type === 'string')
    return (guard as { type: string }).type;
  return 'inline';
}

/** A named action's name (every context update is named); anonymous actions have none. */
const actionName = (action: unknown): string | undefined =>
  typeof action === 'string'
    ? action
    : action && typeof action === 'object' && typeof (action as { type?: unknown }).type === 'string'
      ? (action as { type: string }).type
      : undefined;

function transitionsOf(node: AnyStateNode): TransitionData[] {
  const out: TransitionData[] = [];
  for (const [event, candidates] of node.transitions)
    for (const t of candidates) {
      const guard = guardName(t.guard);
      const updates = (t.actions ?? []).map(actionName).filter((a): a is string => a !== undefined);
      out.push({
        event,
        ...(t.target?.[0] ? { target: t.target[0].key } : {}),
        ...(guard ? { guard } : {}),
        ...(updates.length > 0 ? { updates } : {}),
        ...(t.description ? { description: t.description } : {}),
      });
    }
  return out;
}

/** Guard descriptions a machine gives (`meta.guards`), by name. */
const guardDescriptions = (machine: AnyStateMachine) =>
  ((machine.root.meta as { guards?: Record<string, string> } | undefined)?.guards ?? {}) as Record<string, string>;

/** A machine without child states (context only) is drawn as this one state. */
export const SINGLE_STATE = 'active';

/**
 * The definition of `machine` as data: states with their transitions (event, target, guard,
 * description), the events it takes and the guards it names, and the version exports carry.
 */
export function machineDefinition(machine: AnyStateMachine): MachineDefinition {
  const root: AnyStateNode = machine.root;
  if (Object.keys(root.states).length === 0) {
    const on = transitionsOf(root);
    const description = machine.root.description;
    const single: StateData = { type: 'atomic', final: false, ...(description ? { description } : {}), on };
    return describe(machine, SINGLE_STATE, { [SINGLE_STATE]: single }, []);
  }
  const states: Record<string, StateData> = {};
  const rootTransitions = transitionsOf(root);
  const rootEvents = new Set(rootTransitions.map((t) => t.event));
  for (const [name, node] of Object.entries(root.states)) {
    states[name] = {
      type: node.type,
      final: node.type === 'final',
      ...(node.description ? { description: node.description } : {}),
      // A state's transitions include the root's (xstate merges them in); they are listed once, on the root.
      on: transitionsOf(node).filter(
        (t) => !rootEvents.has(t.event) || node.transitions.get(t.event) !== root.transitions.get(t.event),
      ),
    };
  }
  return describe(machine, root.initial?.target[0]?.key ?? '', states, rootTransitions);
}

function describe(
  machine: AnyStateMachine,
  initial: string,
  states: Record<string, StateData>,
  rootTransitions: TransitionData[],
): MachineDefinition {
  const all = [...rootTransitions, ...Object.values(states).flatMap((s) => s.on)];
  const described = guardDescriptions(machine);
  const guardNames = [...new Set(all.map((t) => t.guard).filter((g): g is string => g !== undefined))];
  return {
    id: machine.id,
    version: machineVersion(machine),
    initial,
    ...(machine.root.description ? { description: machine.root.description } : {}),
    states,
    on: rootTransitions,
    // Every transition's event, targetless ones included (xstate's own list can miss those of a child state).
    events: [...new Set([...(machine.root.events as string[]), ...all.map((t) => t.event)])].sort(),
    guards: guardNames.map((name) => ({ name, ...(described[name] ? { description: described[name] } : {}) })),
    updates: [...new Set(all.flatMap((t) => t.updates ?? []))],
  };
}
