import { describe, expect, it } from 'vitest';
import { createMachine, initialTransition, setup, transition } from 'xstate';
import { invertGuard } from '../../../services/machines/test-switch.ts';

// The planted bug of issue 32's tester: one named guard, negated in place, for every actor of the machine.
const gate = () =>
  setup({ guards: { open: (_: unknown, p: { n: number }) => p.n > 0 } }).createMachine({
    id: 'gate',
    initial: 'shut',
    states: {
      shut: { on: { push: { guard: { type: 'open', params: ({ event }) => event as never }, target: 'passed' } } },
      passed: {},
    },
  });
const after = (machine: ReturnType<typeof gate>, n: number) =>
  transition(machine, initialTransition(machine)[0], { type: 'push', n } as never)[0].value;

describe('invertGuard (PORTICO_TEST_INVERT_GUARD)', () => {
  it('negates the named guard of the named machine, and only that machine', () => {
    const inverted = gate();
    const untouched = gate();
    expect([after(inverted, 1), after(inverted, 0)]).toEqual(['passed', 'shut']);
    invertGuard('gate', 'open', [inverted]);
    expect([after(inverted, 1), after(inverted, 0)]).toEqual(['shut', 'passed']);
    expect(after(untouched, 1)).toBe('passed');
  });

  it('refuses a machine or a guard that does not exist, so a typo is never a clean run', () => {
    expect(() => invertGuard('nope', 'open', [gate()])).toThrow(/no machine "nope"/);
    expect(() => invertGuard('gate', 'shut', [gate()])).toThrow(/no guard "shut"/);
    expect(() => invertGuard('gate', 'toString', [gate()])).toThrow(/no guard "toString"/);
    expect(() => invertGuard('plain', 'x', [createMachine({ id: 'plain' })])).toThrow(/no guard "x"/);
  });
});
