import fc from 'fast-check';
import { initialTransition, transition, type AnyStateMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { scimUserMachine, type ScimResourceEvent } from '../../../machines/scim-resource.ts';
import { scimTenantMachine, type ScimTenantEvent } from '../../../machines/scim-tenant.ts';
import { invertedGuards } from '../../support/inverted-guards.ts';

// Issue 48: the SCIM lifecycle machines over generated event sequences; each rule set catches any one
// inverted guard of its machine.
const active = fc.option(fc.boolean(), { nil: undefined });
const doc = active.map((a) => (a === undefined ? { id: 'u' } : { id: 'u', active: a }));
const from = fc.constantFrom('active', 'inactive') as fc.Arbitrary<'active' | 'inactive'>;
const resourceEvent: fc.Arbitrary<ScimResourceEvent> = fc.oneof(
  doc.map((resource) => ({ type: 'scim.created' as const, at: 1, resource })),
  fc.tuple(doc, from).map(([resource, f]) => ({ type: 'scim.replaced' as const, at: 2, resource, from: f })),
  fc
    .tuple(doc, from)
    .map(([resource, f]) => ({ type: 'scim.patched' as const, at: 3, resource, operations: [], from: f })),
  doc.map((resource) => ({ type: 'scim.deleted' as const, at: 4, resource })),
);

function trace(machine: AnyStateMachine, list: any[]) {
  let [snapshot] = initialTransition(machine, undefined);
  return list.map((e) => {
    const before = snapshot;
    [snapshot] = transition(machine, snapshot, e as never);
    return { e, before, after: snapshot };
  });
}

type Rule = (machine: AnyStateMachine, list: any[]) => void;

const RESOURCE_RULES: Record<string, Rule> = {
  'a live resource is inactive exactly when its last change set active false (RFC 7643 §4.1.1)': (machine, list) => {
    for (const { e, before, after } of trace(machine, list)) {
      const live = ['active', 'inactive'];
      if (e.type === 'scim.created' && before.value === 'absent')
        expect(after.value).toBe(e.resource.active === false ? 'inactive' : 'active');
      if ((e.type === 'scim.replaced' || e.type === 'scim.patched') && live.includes(before.value)) {
        expect(after.value).toBe(e.resource.active === false ? 'inactive' : 'active');
        expect(after.context.resource).toEqual(e.resource);
      }
    }
  },
  'nothing changes an absent or a deleted resource but what creates or deletes it': (machine, list) => {
    for (const { e, before, after } of trace(machine, list)) {
      if (before.value === 'deleted') expect(after).toBe(before);
      if (before.value === 'absent' && e.type !== 'scim.created') expect(after.value).toBe('absent');
      if (e.type === 'scim.deleted' && before.value !== 'absent') expect(after.value).toBe('deleted');
    }
  },
};

const key = fc.constantFrom('ann', 'bob');
const id = fc.constantFrom('1', '2', '3');
const tenantEvent: fc.Arbitrary<ScimTenantEvent> = fc.oneof(
  fc.constant({ type: 'scim.tenant_seeded' as const, at: 1 }),
  fc
    .tuple(key, id)
    .map(([k, i]) => ({ type: 'scim.name_claimed' as const, at: 2, resourceType: 'User', key: k, id: i })),
  fc
    .tuple(key, id)
    .map(([k, i]) => ({ type: 'scim.name_released' as const, at: 3, resourceType: 'User', key: k, id: i })),
);

const TENANT_RULES: Record<string, Rule> = {
  'a name is held by one resource at a time; a claim of a held name changes nothing': (machine, list) => {
    for (const { e, before, after } of trace(machine, list)) {
      const names = after.context.names.map(([t, k]: string[]) => `${t}/${k}`);
      expect(new Set(names).size).toBe(names.length);
      if (e.type !== 'scim.name_claimed') continue;
      const holder = before.context.names.find(([, k]: string[]) => k === e.key)?.[2];
      if (holder === undefined || holder === e.id) expect(after.context.names).toContainEqual(['User', e.key, e.id]);
      else expect(after.context.names).toEqual(before.context.names);
    }
  },
  'only the holder releases a name': (machine, list) => {
    for (const { e, before, after } of trace(machine, list)) {
      if (e.type !== 'scim.name_released') continue;
      const held = before.context.names.some(([, k, i]: string[]) => k === e.key && i === e.id);
      expect(after.context.names.some(([, k]: string[]) => k === e.key)).toBe(
        held ? false : before.context.names.some(([, k]: string[]) => k === e.key),
      );
    }
  },
};

describe.each([
  ['SCIM resource', scimUserMachine as AnyStateMachine, RESOURCE_RULES, resourceEvent as fc.Arbitrary<unknown>],
  ['SCIM tenant', scimTenantMachine as AnyStateMachine, TENANT_RULES, tenantEvent as fc.Arbitrary<unknown>],
])('%s machine', (_name, machine, rules, event) => {
  const events = fc.array(event, { maxLength: 20 });
  it.each(Object.entries(rules))('%s', (_rule, rule) => {
    fc.assert(
      fc.property(events, (list) => rule(machine, list)),
      { numRuns: 1000 },
    );
  });

  it('has a rule that fails when any one guard is inverted', () => {
    const mutants = invertedGuards(machine);
    expect(mutants.length).toBeGreaterThan(0);
    for (const [guard, mutant] of mutants) {
      const caught = Object.values(rules).some(
        (rule) =>
          fc.check(
            fc.property(events, (list) => rule(mutant, list)),
            { numRuns: 1000, seed: 7 },
          ).failed,
      );
      expect(caught, guard).toBe(true);
    }
  });
});
