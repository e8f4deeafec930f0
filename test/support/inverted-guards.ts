import type { AnyStateMachine } from 'xstate';

type Guard = (...args: unknown[]) => boolean;

/**
 * Every named guard of `machine`, each with a copy of the machine in which that one guard is negated
 * (`machine.provide`): the mutants a machine's properties must tell apart from the machine (issue 32).
 */
export function invertedGuards<M extends AnyStateMachine>(machine: M): Array<[name: string, mutant: M]> {
  const guards = (machine.implementations.guards ?? {}) as Record<string, Guard>;
  return Object.keys(guards).map((name) => [
    name,
    machine.provide({ guards: { [name]: (...args: unknown[]) => !guards[name]!(...args) } }) as M,
  ]);
}
