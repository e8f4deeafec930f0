import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { ssfStreamMachine, type SsfStreamEvent } from '../../../machines/ssf-stream.ts';
import { invertedGuards } from '../../support/inverted-guards.ts';

// Issue 35: properties of a stream's lifecycle over generated event sequences; each rule must catch any
// one inverted guard.
type Machine = typeof ssfStreamMachine;
const jti = fc.constantFrom('a', 'b', 'c', 'd');
const event: fc.Arbitrary<SsfStreamEvent> = fc.oneof(
  fc.tuple(jti, fc.boolean()).map(([j, control]) => ({
    type: 'ssf.set_issued' as const,
    at: 1,
    jti: j,
    set: `set-${j}`,
    event_types: ['t'],
    control,
  })),
  fc
    .array(jti, { minLength: 1, maxLength: 2 })
    .map((jtis) => ({ type: 'ssf.sets_acknowledged' as const, at: 1, jtis })),
  jti.map((j) => ({ type: 'ssf.sets_refused' as const, at: 1, errors: [{ jti: j, err: 'invalid_key' }] })),
  fc
    .constantFrom('enabled', 'paused', 'disabled')
    .map((status) => ({ type: 'ssf.status_changed' as const, at: 1, status: status as 'enabled' })),
  fc.constantFrom('s1', 's2').map((key) => ({
    type: 'ssf.subject_added' as const,
    at: 1,
    key,
    subject: { format: 'opaque', id: key },
    verified: true,
  })),
  fc.constantFrom('s1', 's2').map((key) => ({ type: 'ssf.subject_removed' as const, at: 1, key })),
  fc.constant({ type: 'ssf.stream_deleted' as const, at: 1 }),
  // Issue 46 §4: delivery leases of two instances, and push failures with their retry schedule.
  fc
    .tuple(fc.constantFrom('i1', 'i2'), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 1, max: 60 }))
    .map(([holder, at, span]) => ({ type: 'ssf.delivery_leased' as const, at, holder, until: at + span })),
  fc.tuple(jti, fc.integer({ min: 1, max: 5 })).map(([j, attempt]) => ({
    type: 'ssf.delivery_failed' as const,
    at: 10,
    jti: j,
    reason: 'HTTP 503',
    attempt,
    retry_at: 10 + attempt,
    failing_since: 5,
  })),
);
const events = fc.array(event, { maxLength: 30 });

function run(machine: Machine, list: SsfStreamEvent[]) {
  let [snapshot] = initialTransition(machine);
  [snapshot] = transition(machine, snapshot, {
    type: 'ssf.stream_created',
    at: 0,
    client_id: 'c',
    delivery: { method: 'urn:ietf:rfc:8936', endpoint_url: 'https://t/poll' },
    events_requested: ['t'],
    events_delivered: ['t'],
  });
  const trace = [];
  for (const e of list) {
    const before = snapshot;
    [snapshot] = transition(machine, snapshot, e);
    trace.push({ e, before, after: snapshot });
  }
  return trace;
}

const RULES: Record<string, (machine: Machine, list: SsfStreamEvent[]) => void> = {
  "one instance holds the delivery lease: another's is taken only once it has lapsed; an answer ends a retry": (
    machine,
    list,
  ) => {
    for (const { e, before, after } of run(machine, list)) {
      if (before.value === 'deleted') continue;
      if (e.type === 'ssf.delivery_leased') {
        const held = before.context.lease;
        const free = !held || held.holder === e.holder || held.until <= e.at;
        expect(after.context.lease).toEqual(free ? { holder: e.holder, until: e.until } : held);
      }
      if (e.type === 'ssf.delivery_failed')
        expect(after.context.retry).toEqual({ since: e.failing_since, attempts: e.attempt, at: e.retry_at });
      if (e.type === 'ssf.sets_acknowledged' && after !== before) expect(after.context.retry).toBeUndefined();
    }
  },
  'a jti is queued once, ever: acknowledged or refused, it never comes back': (machine, list) => {
    const gone = new Set<string>();
    for (const { e, before, after } of run(machine, list)) {
      if (before.value === 'deleted') continue;
      const pending = after.context.pending.map((p) => p.jti);
      expect(new Set(pending).size).toBe(pending.length);
      for (const j of gone) expect(pending).not.toContain(j);
      if (e.type === 'ssf.sets_acknowledged')
        for (const j of e.jtis) if (before.context.pending.some((p) => p.jti === j)) gone.add(j);
      if (e.type === 'ssf.sets_refused')
        for (const x of e.errors) if (before.context.pending.some((p) => p.jti === x.jti)) gone.add(x.jti);
      if (e.type === 'ssf.set_issued' && !before.context.queued.includes(e.jti)) {
        const queued = before.value !== 'disabled' || e.control;
        expect(after.context.pending.some((p) => p.jti === e.jti)).toBe(queued);
      }
    }
  },
  'disabled holds nothing but control events; paused holds everything': (machine, list) => {
    for (const { e, before, after } of run(machine, list)) {
      if (after.value === 'disabled' && before.value !== 'disabled')
        expect(after.context.pending.every((p) => p.control)).toBe(true);
      if (e.type === 'ssf.set_issued' && before.value === 'paused' && !before.context.queued.includes(e.jti))
        expect(after.context.pending.map((p) => p.jti)).toContain(e.jti);
    }
  },
  'subjects: added once, removed only when there, and a deleted stream never moves': (machine, list) => {
    for (const { e, before, after } of run(machine, list)) {
      const keys = after.context.subjects.map((s) => s.key);
      expect(new Set(keys).size).toBe(keys.length);
      if (before.value === 'deleted') expect(after).toBe(before);
      if (e.type === 'ssf.subject_removed' && before.value !== 'deleted') expect(keys).not.toContain(e.key);
      if (e.type === 'ssf.subject_added' && before.value !== 'deleted') expect(keys).toContain(e.key);
      if (e.type === 'ssf.status_changed' && before.value !== 'deleted') expect(after.value).toBe(e.status);
    }
  },
};

describe('SSF stream machine properties', () => {
  it.each(Object.entries(RULES))('%s', (_name, rule) => {
    fc.assert(
      fc.property(events, (list) => rule(ssfStreamMachine, list)),
      { numRuns: 1000 },
    );
  });

  it('has a rule that fails when any one inverted guard is provided', () => {
    for (const [name, mutated] of invertedGuards(ssfStreamMachine)) {
      const caught = Object.values(RULES).some(
        (rule) =>
          fc.check(
            fc.property(events, (list) => rule(mutated, list)),
            { numRuns: 1000, seed: 7 },
          ).failed,
      );
      expect(caught, `inverting ${name} went unnoticed`).toBe(true);
    }
  });
});
