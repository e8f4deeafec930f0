/**
 * A decider: whether a snapshot stands in one of these states of its machine. Services ask a machine's
 * named deciders instead of comparing state names, so that what a state means is written beside the
 * definition that publishes it (test/unit/machines/deciders.test.ts holds each to its machine's states).
 */
export interface StateDecider {
  (snapshot: { value: unknown }): boolean;
  readonly states: readonly string[];
}

export const inState = (...states: string[]): StateDecider =>
  Object.assign(
    (snapshot: { value: unknown }) => typeof snapshot.value === 'string' && states.includes(snapshot.value),
    {
      states,
    },
  );
