import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { TX_CODE_ATTEMPTS, issuanceMachine, type IssuanceEvent } from '../../../machines/issuance.ts';

// Issue 15: properties of the offer lifecycle, over generated event sequences.
const EXPIRES = 600_000;
const event: fc.Arbitrary<IssuanceEvent> = fc.oneof(
  fc.integer({ min: 0, max: 700_000 }).map((at) => ({ type: 'issuance.offer_fetched' as const, at })),
  fc.integer({ min: 0, max: 700_000 }).map((at) => ({ type: 'issuance.tx_code_rejected' as const, at })),
  fc.integer({ min: 0, max: 700_000 }).map((at) => ({ type: 'issuance.token_issued' as const, at, token_hash: 'h', token_type: 'Bearer' as const, scope: 'vc:mdl' })),
  fc.integer({ min: 0, max: 700_000 }).map((at) => ({ type: 'issuance.credential_issued' as const, at, configuration_id: 'MobileDrivingLicenceMsoMdoc', proof_count: 1, holder_jkts: ['k'], notification_id_hash: 'n' })),
  fc.tuple(fc.integer({ min: 0, max: 700_000 }), fc.constantFrom('credential_accepted', 'credential_failure', 'credential_deleted') as fc.Arbitrary<'credential_accepted' | 'credential_failure' | 'credential_deleted'>).map(([at, e]) => ({ type: 'issuance.notified' as const, at, event: e })),
);

function run(events: IssuanceEvent[]) {
  let [snapshot] = initialTransition(issuanceMachine);
  [snapshot] = transition(issuanceMachine, snapshot, { type: 'issuance.offered', at: 0, grant: 'pre-authorized_code', configuration_ids: ['MobileDrivingLicenceMsoMdoc'], code_hash: 'c', tx_code_hash: 't', expires_at: EXPIRES, by_value: false, user: 'alice' });
  const trace: Array<{ event: IssuanceEvent; before: string; after: string; failuresBefore: number; notificationBefore?: string }> = [];
  for (const e of events) {
    const before = String(snapshot.value);
    const failuresBefore = snapshot.context.txCodeFailures;
    const notificationBefore = snapshot.context.notificationEvent;
    [snapshot] = transition(issuanceMachine, snapshot, e);
    trace.push({ event: e, before, after: String(snapshot.value), failuresBefore, notificationBefore });
  }
  return { snapshot, trace };
}

describe('issuance machine properties', () => {
  it('a token is issued at most once, only before expiry and before the code burns', () => {
    fc.assert(fc.property(fc.array(event, { maxLength: 25 }), (events) => {
      const { trace } = run(events);
      const issued = trace.filter((t) => t.event.type === 'issuance.token_issued' && t.after === 'token_issued' && t.before !== 'token_issued');
      expect(issued.length).toBeLessThanOrEqual(1);
      for (const t of issued) {
        expect(t.event.at).toBeLessThan(EXPIRES);
        expect(t.failuresBefore).toBeLessThan(TX_CODE_ATTEMPTS);
      }
    }), { numRuns: 2000 });
  });

  it('the fifth wrong tx_code burns the offer, and nothing moves an expired offer', () => {
    fc.assert(fc.property(fc.array(event, { maxLength: 25 }), (events) => {
      const { trace } = run(events);
      for (const t of trace) {
        if (t.before === 'expired') expect(t.after).toBe('expired');
        if (t.event.type === 'issuance.tx_code_rejected' && (t.before === 'offered' || t.before === 'offer_fetched')) expect(t.after === 'expired').toBe(t.failuresBefore + 1 >= TX_CODE_ATTEMPTS);
      }
    }), { numRuns: 2000 });
  });

  it('credentials follow a token; notifications follow a credential; credential_failure never follows credential_accepted', () => {
    fc.assert(fc.property(fc.array(event, { maxLength: 25 }), (events) => {
      const { trace } = run(events);
      for (const t of trace) {
        if (t.after === 'credential_issued' && t.before !== 'credential_issued') expect(t.before).toBe('token_issued');
        if (t.after === 'notified' && t.before !== 'notified') expect(t.before).toBe('credential_issued');
        if (t.event.type === 'issuance.notified' && t.event.event === 'credential_failure' && t.notificationBefore === 'credential_accepted') expect(t.after).toBe(t.before);
      }
    }), { numRuns: 2000 });
  });
});
