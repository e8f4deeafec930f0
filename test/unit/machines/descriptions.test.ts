import { describe, expect, it } from 'vitest';
import { MACHINES_BY_STREAM_PREFIX } from '../../../machines/index.ts';
import { machineDefinition } from '../../../services/machines/definition.ts';

// Issue 32: each machine, state and transition says what it implements, citing the specification's
// section or table row (or our decisions) where there is one; the pages and SCXML show these texts.
const CITES = /(RFC \d+|OpenID4V(CI|P) 1\.0|service spec|[Dd]ecisions|SPEC|§)/;

describe.each(Object.values(MACHINES_BY_STREAM_PREFIX).map((m) => [m.id, m] as const))('%s', (_id, machine) => {
  const definition = machineDefinition(machine);

  it('describes the machine and every state', () => {
    expect(definition.description).toMatch(CITES);
    for (const [name, state] of Object.entries(definition.states)) expect(state.description, name).toBeTruthy();
  });

  it('describes every transition, and most cite their rule', () => {
    const transitions = [...definition.on, ...Object.values(definition.states).flatMap((s) => s.on)];
    for (const t of transitions) expect(t.description, `${t.event} -> ${t.target ?? '(stays)'}`).toBeTruthy();
    const citing = transitions.filter((t) => CITES.test(t.description!)).length;
    expect(citing / transitions.length).toBeGreaterThanOrEqual(0.5);
  });
});
