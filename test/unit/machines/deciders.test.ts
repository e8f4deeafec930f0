import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StateDecider } from '../../../machines/deciders.ts';

// Issue 46 §4: services ask a machine's named deciders instead of comparing state names. Each decider
// names only states its machine defines (a renamed state fails here, not silently in a service).
const MACHINES_DIR = join(import.meta.dirname, '../../../machines');

const isMachine = (value: unknown): value is AnyStateMachine =>
  typeof value === 'object' && value !== null && 'config' in value && 'transition' in value;
const isDecider = (value: unknown): value is StateDecider =>
  typeof value === 'function' && Array.isArray((value as Partial<StateDecider>).states);

/** Every state name of a machine, nested ones included. */
function stateNames(machine: AnyStateMachine): Set<string> {
  const names = new Set<string>();
  const walk = (node: { states?: Record<string, unknown> }) => {
    for (const [name, child] of Object.entries(node.states ?? {})) {
      names.add(name);
      walk(child as { states?: Record<string, unknown> });
    }
  };
  walk(machine.config as { states?: Record<string, unknown> });
  return names;
}

const modules = await Promise.all(
  readdirSync(MACHINES_DIR)
    .filter((f) => f.endsWith('.ts'))
    .map(async (f) => [f, (await import(join(MACHINES_DIR, f))) as Record<string, unknown>] as const),
);
const withDeciders = modules
  .map(([file, exports]) => {
    const machines = Object.values(exports).filter(isMachine);
    const deciders = Object.entries(exports).flatMap(([group, value]) =>
      typeof value === 'object' && value !== null && !isMachine(value)
        ? Object.entries(value)
            .filter(([, d]) => isDecider(d))
            .map(([name, d]) => [`${group}.${name}`, d as StateDecider] as const)
        : [],
    );
    return { file, machines, deciders };
  })
  .filter((m) => m.deciders.length > 0);

describe('machine deciders', () => {
  it('exist for the machines services decide on', () => {
    expect(withDeciders.length).toBeGreaterThanOrEqual(15);
  });

  it.each(withDeciders.map((m) => [m.file, m] as const))('%s: every decider names states of its machine', (_f, m) => {
    const known = new Set(m.machines.flatMap((machine) => [...stateNames(machine)]));
    expect(known.size).toBeGreaterThan(0);
    for (const [name, decider] of m.deciders) {
      expect(decider.states.length, name).toBeGreaterThan(0);
      for (const state of decider.states) expect(known.has(state), `${name}: ${state}`).toBe(true);
      // It answers by the state alone.
      for (const state of known)
        expect(decider({ value: state }), `${name} at ${state}`).toBe(decider.states.includes(state));
    }
  });
});
