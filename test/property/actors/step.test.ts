import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import { MACHINES_BY_STREAM_PREFIX } from '../../../machines/index.ts';
import { flatStep } from '../../../services/actors/flat-step.ts';
import { persistedState, step } from '../../../services/actors/fold.ts';

/** Every event type a machine names anywhere in its states. */
function eventTypes(machine: AnyStateMachine): string[] {
  const types = new Set<string>();
  const visit = (node: { on?: Record<string, unknown>; states?: Record<string, unknown> }) => {
    for (const type of Object.keys(node.on ?? {})) types.add(type);
    for (const child of Object.values(node.states ?? {})) visit(child as never);
  };
  visit(machine.config as never);
  return [...types];
}

/** What a transition gives: the state reached, or the error it threw. */
function outcome(run: () => AnyMachineSnapshot): unknown {
  try {
    return persistedState(run());
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

/** Machines of the flat shape `flatStep` takes (every one but the SET receiver, whose states nest). */
const FLAT = new Set([
  'agent',
  'code',
  'refresh',
  'interaction',
  'once',
  'run',
  'spiffe-mode',
  'x509-svid',
  'issuance',
  'presentation',
  'wallet-exchange',
]);

/** Machines whose events need a particular shape to move at all: a well-formed event joins the random ones. */
const WELL_FORMED: Record<string, (at: number) => Record<string, unknown>> = {
  agent: (at) => ({
    type: 'agent.registered',
    at,
    claimTokenHash: 'c',
    assertion: { jtiHash: 'j', exp: Math.floor(at / 1000) + 600, nbf: Math.floor(at / 1000) },
  }),
  'set-receiver': (at) => ({ type: 'sets.acknowledged', at, jtis: [`set-${at}`] }),
  'status-list': (at) => ({ type: 'status_list.indices_reserved', at, indices: [at % 131_072] }),
};

/** Snapshot members compared whole: everything but the machine (the same object on both sides). */
const comparable = (snapshot: AnyMachineSnapshot) => {
  const { machine: _machine, ...rest } = snapshot as AnyMachineSnapshot & { machine: unknown };
  return rest;
};

describe('step (a shared inert scope, flat machines without the general microstep) is xstate transition', () => {
  for (const [prefix, machine] of Object.entries(MACHINES_BY_STREAM_PREFIX)) {
    const types = eventTypes(machine);
    it(`${prefix}: the same state after any sequence of its events, with any payload`, () => {
      expect(types.length).toBeGreaterThan(0);
      const payload = fc.dictionary(
        fc.constantFrom(
          'at',
          'reason',
          'status',
          'error',
          'purpose',
          'configuration_ids',
          'expires_at',
          'enc',
          'reasons',
          'jkt',
          'x',
        ),
        fc.jsonValue({ maxDepth: 2 }),
        { maxKeys: 4 },
      );
      const random = fc
        .record({ type: fc.constantFrom(...types), at: fc.integer({ min: 0, max: 2e12 }), extra: payload })
        .map(({ type, at, extra }) => ({ ...extra, type, at }));
      const wellFormed = WELL_FORMED[prefix];
      const event = wellFormed ? fc.oneof(random, fc.integer({ min: 0, max: 2e12 }).map(wellFormed)) : random;
      let moved = 0;
      let flat = 0;
      fc.assert(
        fc.property(fc.array(event as fc.Arbitrary<{ type: string; at: number }>, { maxLength: 12 }), (events) => {
          let ours = initialTransition(machine)[0];
          let theirs = ours;
          for (const e of events) {
            const a = outcome(() => step(machine, ours, e));
            const b = outcome(() => transition(machine, theirs, e)[0]);
            expect(a).toEqual(b);
            if ((a as { threw?: string }).threw !== undefined) return;
            const before = ours;
            if (flatStep(machine, ours, e, { self: undefined, system: undefined } as never) !== undefined) flat += 1;
            ours = step(machine, ours, e);
            theirs = transition(machine, theirs, e)[0];
            if (ours !== before) moved += 1;
            // The whole snapshot: value, context, status, output, state nodes, tags, children, history.
            expect(comparable(ours)).toEqual(comparable(theirs));
            expect(ours.machine).toBe(theirs.machine);
          }
        }),
        { numRuns: 150 },
      );
      expect(moved).toBeGreaterThan(0); // the sequences did move the machine, not only knock on closed doors
      if (FLAT.has(prefix)) expect(flat).toBeGreaterThan(0); // and flat machines took the short path
    });
  }
});
