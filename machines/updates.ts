import { assign, type EventObject, type MachineContext } from 'xstate';

/** A context update: a pure function of the context and the event, answering the fields it changes. */
export type ContextUpdate<C> = (context: C, event: any) => Partial<C>;

/**
 * Each machine exports its context updates as pure, named functions (`<machine>Updates`), so a suite
 * can call one on its own; these become the machine's xstate actions of the same names.
 */
export function updateActions<
  C extends MachineContext,
  E extends EventObject,
  U extends Record<string, ContextUpdate<C>>,
>(updates: U) {
  const action = (update: ContextUpdate<C>) =>
    assign<C, E, undefined, E, never>(({ context, event }) => update(context, event));
  return Object.fromEntries(Object.entries(updates).map(([name, update]) => [name, action(update)])) as {
    [K in keyof U]: ReturnType<typeof action>;
  };
}
