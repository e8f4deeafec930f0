import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryDelay } from '../../../services/ssf/push.ts';
import { subjectFault, subjectKey, subjectsMatch } from '../../../services/ssf/subjects.ts';
import { eventBodyFault } from '../../../services/ssf/event-types.ts';

// Issue 35: push retries back off exponentially with jitter up to ten minutes; subjects match as SSF 1.0
// §8.1.3.1 says; every CAEP and RISC body is held to its type's fields.
describe('push retry delays', () => {
  it('grow from about a second, never past ten minutes, never below half their ceiling', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, r) => {
        const delay = retryDelay(attempt, () => r);
        const ceiling = Math.min(600_000, 1000 * 2 ** (attempt - 1));
        expect(delay).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
        expect(delay).toBeLessThanOrEqual(ceiling);
      }),
    );
    expect(retryDelay(1, () => 0)).toBe(500);
    expect(retryDelay(30, () => 0.999)).toBeLessThanOrEqual(600_000);
  });
});

describe('subjects', () => {
  const alice = { format: 'email', email: 'alice@example.com' };
  const tenant = { format: 'opaque', id: 'tenant-1' };
  it('match simple ones exactly, and complex ones on every member both define', () => {
    expect(subjectsMatch(alice, { email: 'alice@example.com', format: 'email' })).toBe(true);
    expect(subjectsMatch(alice, { format: 'email', email: 'bob@example.com' })).toBe(false);
    expect(subjectsMatch({ format: 'complex', tenant }, { format: 'complex', tenant, user: alice })).toBe(true);
    expect(subjectsMatch({ format: 'complex', tenant, user: alice }, { format: 'complex', tenant })).toBe(true);
    expect(
      subjectsMatch(
        { format: 'complex', tenant, user: alice },
        { format: 'complex', tenant: { format: 'opaque', id: 'other' }, user: alice },
      ),
    ).toBe(false);
    expect(subjectsMatch(alice, { format: 'complex', user: alice, tenant })).toBe(true);
    expect(subjectsMatch({ format: 'complex', tenant }, { format: 'complex', user: alice })).toBe(false);
    expect(subjectKey({ b: 1, a: 2 } as never)).toBe(subjectKey({ a: 2, b: 1 } as never));
  });

  it('refuse unknown formats, missing members and extra members', () => {
    expect(subjectFault(alice)).toBeUndefined();
    expect(subjectFault({ format: 'iss_sub', iss: 'https://i', sub: 's' })).toBeUndefined();
    expect(subjectFault({ format: 'complex', user: alice, tenant })).toBeUndefined();
    for (const bad of [
      null,
      [],
      {},
      { format: 'x' },
      { format: 'email' },
      { format: 'email', email: 'nope' },
      { format: 'opaque', id: 'a', extra: 1 },
      { format: 'complex' },
      { format: 'complex', user: { format: 'complex' } },
    ])
      expect(subjectFault(bad), JSON.stringify(bad)).toBeTypeOf('string');
  });
});

describe('event bodies', () => {
  const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
  it('hold required fields, enumerations and the common CAEP claims', () => {
    expect(eventBodyFault(`${CAEP}session-revoked`, {})).toBeUndefined();
    expect(
      eventBodyFault(`${CAEP}session-revoked`, {
        reason_admin: { en: 'x' },
        initiating_entity: 'policy',
        event_timestamp: 1,
      }),
    ).toBeUndefined();
    expect(eventBodyFault(`${CAEP}session-revoked`, { reason_admin: 'x' })).toMatch(/language tags/);
    expect(eventBodyFault(`${CAEP}risk-level-change`, { principal: 'USER', current_level: 'HIGH' })).toBeUndefined();
    expect(eventBodyFault(`${CAEP}risk-level-change`, { principal: 'USER', current_level: 'HUGE' })).toMatch(
      /LOW, MEDIUM, HIGH/,
    );
    expect(eventBodyFault(`${CAEP}token-claims-change`, { claims: {} })).toMatch(/non-empty/);
    expect(eventBodyFault('urn:x', {})).toMatch(/not a CAEP or RISC/);
  });
});
