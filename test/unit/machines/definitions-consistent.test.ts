import { describe, expect, it } from 'vitest';
import { MachineRegistry } from '../../../services/machines/registry.ts';

// Issue 45 item 16: every machine's definition as data holds together: every transition's event is in
// `events`, every target is a state, every guard is in `guards`.
describe('machine definitions are consistent', () => {
  const machines = new MachineRegistry().list();

  it('lists every machine, flowRun among them', () => {
    expect(machines.map((m) => m.id)).toContain('flowRun');
  });

  for (const m of new MachineRegistry().list())
    it(`${m.id}: events, targets and guards agree with its transitions`, () => {
      const d = m.definition;
      const transitions = [...d.on, ...Object.values(d.states).flatMap((s) => s.on)];
      const events = new Set(d.events);
      const guards = new Set(d.guards.map((g) => g.name));
      for (const t of transitions) {
        expect(events.has(t.event), `${m.id}: event ${t.event} is not in events`).toBe(true);
        if (t.target !== undefined) expect(d.states, `${m.id}: target ${t.target}`).toHaveProperty([t.target]);
        if (t.guard !== undefined) expect(guards.has(t.guard), `${m.id}: guard ${t.guard}`).toBe(true);
      }
      if (Object.keys(d.states).length > 0) expect(d.states).toHaveProperty([d.initial]);
    });
});
