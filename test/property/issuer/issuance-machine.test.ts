import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { TX_CODE_ATTEMPTS, issuanceMachine, type IssuanceEvent } from '../../../machines/issuance.ts';

// Issue 15: properties of the offer lifecycle, over generated event sequences.
const EXPIRES = 600_000;
const event: fc.Arbitrary<IssuanceEvent> = fc.oneof(
  fc.integer({ min: 0, max: 700_000 }).map((at) => ({ type: 'issuance.offer_fetched' as const, at })),
  fc.integer({ min: 0, max: 700_000 }).map((at) => ({ type: 'issuance.tx_code_rejected' as const, at })),
  fc.integer({ min: 0, max: 700_000 }).map((at) => ({
    type: 'issuance.token_issued' as const,
    at,
    token_hash: 'h',
    token_type: 'Bearer' as const,
    scope: 'vc:mdl',
  })),
  fc.integer({ min: 0, max: 700_000 }).map((at) => ({
    type: 'issuance.credential_issued' as const,
    at,
    configuration_id: 'MobileDrivingLicenceMsoMdoc',
    proof_count: 1,
    holder_jkts: ['k'],
    notification_id_hash: 'n',
  })),
  fc
    .tuple(
      fc.integer({ min: 0, max: 700_000 }),
      fc.constantFrom('credential_accepted', 'credential_failure', 'credential_deleted') as fc.Arbitrary<
        'credential_accepted' | 'credential_failure' | 'credential_deleted'
      >,
    )
    .map(([at, e]) => ({ type: 'issuance.notified' as const, at, event: e })),
);

function run(events: IssuanceEvent[]) {
  let [snapshot] = initialTransition(issuanceMachine);
  [snapshot] = transition(issuanceMachine, snapshot, {
    type: 'issuance.offered',
    at: 0,
    grant: 'pre-authorized_code',
    configuration_ids: ['MobileDrivingLicenceMsoMdoc'],
    code_hash: 'c',
    tx_code_hash: 't',
    expires_at: EXPIRES,
    by_value: false,
    user: 'alice',
  });
  const trace: Array<{
    event: IssuanceEvent;
    before: string;
    after: string;
    failuresBefore: number;
    notificationBefore?: string;
  }> = [];
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
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), (events) => {
        const { trace } = run(events);
        const issued = trace.filter(
          (t) => t.event.type === 'issuance.token_issued' && t.after === 'token_issued' && t.before !== 'token_issued',
        );
        expect(issued.length).toBeLessThanOrEqual(1);
        for (const t of issued) {
          expect(t.event.at).toBeLessThan(EXPIRES);
          expect(t.failuresBefore).toBeLessThan(TX_CODE_ATTEMPTS);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('the fifth wrong tx_code burns the offer, and nothing moves an expired offer', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), (events) => {
        const { trace } = run(events);
        for (const t of trace) {
          if (t.before === 'expired') expect(t.after).toBe('expired');
          if (t.event.type === 'issuance.tx_code_rejected' && (t.before === 'offered' || t.before === 'offer_fetched'))
            expect(t.after === 'expired').toBe(t.failuresBefore + 1 >= TX_CODE_ATTEMPTS);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('credentials follow a token; notifications follow a credential; credential_failure never follows credential_accepted', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), (events) => {
        const { trace } = run(events);
        for (const t of trace) {
          if (t.after === 'credential_issued' && t.before !== 'credential_issued')
            expect(t.before).toBe('token_issued');
          if (t.after === 'notified' && t.before !== 'notified') expect(t.before).toBe('credential_issued');
          if (
            t.event.type === 'issuance.notified' &&
            t.event.event === 'credential_failure' &&
            t.notificationBefore === 'credential_accepted'
          )
            expect(t.after).toBe(t.before);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('issuance machine properties: authorization code, deferred, nonce challenges', () => {
  const at = fc.integer({ min: 0, max: 700_000 });
  const event: fc.Arbitrary<IssuanceEvent> = fc.oneof(
    at.map((t) => ({
      type: 'issuance.authorization_requested' as const,
      at: t,
      client_id: 'w',
      redirect_uri: 'https://w/cb',
      code_challenge: 'c',
      configuration_ids: ['UniversityDegreeCredential'],
      authorization_details: false,
      request_uri_hash: 'r',
      request_expires_at: t + 90_000,
      expires_at: t + 600_000,
    })),
    at.map((t) => ({ type: 'issuance.authorization_started' as const, at: t, interaction_id: 'i' })),
    at.map((t) => ({
      type: 'issuance.code_issued' as const,
      at: t,
      code_hash: 'h',
      sub: 'alice',
      code_expires_at: t + 60_000,
    })),
    at.map((t) => ({ type: 'issuance.authorization_declined' as const, at: t })),
    at.map((t) => ({
      type: 'issuance.token_issued' as const,
      at: t,
      token_hash: 't',
      token_type: 'DPoP' as const,
      scope: 's',
    })),
    at.map((t) => ({ type: 'issuance.nonce_challenged' as const, at: t, side: 'as' as const })),
    at.map((t) => ({
      type: 'issuance.credential_issued' as const,
      at: t,
      configuration_id: 'UniversityDegreeCredential',
      proof_count: 1,
      holder_jkts: ['k'],
      notification_id_hash: 'n',
    })),
  );

  it('wallet-initiated: a code only after the request_uri was used in time; a token only from a live code, once; challenges counted until the end', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }), (events) => {
        let [snapshot] = initialTransition(issuanceMachine);
        let challenges = 0;
        let tokens = 0;
        for (const e of events) {
          const before = snapshot;
          [snapshot] = transition(issuanceMachine, snapshot, e);
          if (e.type === 'issuance.nonce_challenged' && before.value !== 'expired') challenges += 1;
          if (snapshot.value === 'authorizing' && before.value !== 'authorizing') {
            expect(before.value).toBe('authorization_requested');
            expect(e.at).toBeLessThan(before.context.par!.requestExpiresAt);
          }
          if (snapshot.value === 'code_issued' && before.value !== 'code_issued')
            expect(before.value).toBe('authorizing');
          if (snapshot.value === 'token_issued' && before.value !== 'token_issued') {
            tokens += 1;
            expect(before.value).toBe('code_issued');
            expect(e.at).toBeLessThan(before.context.authCodeExpiresAt!);
          }
        }
        expect(tokens).toBeLessThanOrEqual(1);
        expect(snapshot.context.dpopNonceChallenges).toBe(challenges);
      }),
      { numRuns: 2000 },
    );
  });

  it('deferred: a deferred offer never issues directly, and collection waits for readyAt', () => {
    const deferredEvent: fc.Arbitrary<IssuanceEvent> = fc.oneof(
      at.map((t) => ({
        type: 'issuance.token_issued' as const,
        at: t,
        token_hash: 't',
        token_type: 'Bearer' as const,
        scope: 's',
      })),
      at.map((t) => ({
        type: 'issuance.credential_issued' as const,
        at: t,
        configuration_id: 'c',
        proof_count: 1,
        holder_jkts: ['k'],
        notification_id_hash: 'n',
      })),
      at.map((t) => ({
        type: 'issuance.deferred' as const,
        at: t,
        configuration_id: 'c',
        proof_count: 1,
        holder_jkts: ['k'],
        holder_jwks: [],
        transaction_id_hash: 'x',
        ready_at: t + 3_000,
      })),
      at.map((t) => ({ type: 'issuance.deferred_collected' as const, at: t, notification_id_hash: 'n' })),
    );
    fc.assert(
      fc.property(fc.array(deferredEvent, { maxLength: 20 }), (events) => {
        let [snapshot] = initialTransition(issuanceMachine);
        [snapshot] = transition(issuanceMachine, snapshot, {
          type: 'issuance.offered',
          at: 0,
          grant: 'pre-authorized_code',
          configuration_ids: ['c'],
          code_hash: 'h',
          expires_at: 600_000,
          by_value: false,
          user: 'alice',
          deferred: true,
        });
        for (const e of events) {
          const before = snapshot;
          [snapshot] = transition(issuanceMachine, snapshot, e);
          if (e.type === 'issuance.credential_issued')
            expect(snapshot.value === 'credential_issued' && before.value === 'token_issued').toBe(false);
          if (snapshot.value === 'credential_issued' && before.value === 'deferred')
            expect(e.at).toBeGreaterThanOrEqual(before.context.readyAt!);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
