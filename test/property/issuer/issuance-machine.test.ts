import fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { TX_CODE_ATTEMPTS, issuanceMachine, type IssuanceEvent } from '../../../machines/issuance.ts';
import { invertedGuards } from '../../support/inverted-guards.ts';

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

type IssuanceMachine = typeof issuanceMachine;

function run(events: IssuanceEvent[], machine: IssuanceMachine) {
  let [snapshot] = initialTransition(machine);
  [snapshot] = transition(machine, snapshot, {
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
    [snapshot] = transition(machine, snapshot, e);
    trace.push({ event: e, before, after: String(snapshot.value), failuresBefore, notificationBefore });
  }
  return { snapshot, trace };
}

const offerEvents = fc.array(event, { maxLength: 25 });
const at = fc.integer({ min: 0, max: 700_000 });
/** Wallet-initiated issuance events at increasing times (steps of up to 70 s, so lifetimes both hold and lapse). */
const walletEvent = (t: number, kind: number): IssuanceEvent => {
  switch (kind) {
    case 0:
      return {
        type: 'issuance.authorization_requested',
        at: t,
        client_id: 'w',
        redirect_uri: 'https://w/cb',
        code_challenge: 'c',
        configuration_ids: ['UniversityDegreeCredential'],
        authorization_details: false,
        request_uri_hash: 'r',
        request_expires_at: t + 90_000,
        expires_at: t + 600_000,
      };
    case 1:
      return { type: 'issuance.authorization_started', at: t, interaction_id: 'i' };
    case 2:
      return { type: 'issuance.code_issued', at: t, code_hash: 'h', sub: 'alice', code_expires_at: t + 60_000 };
    case 3:
      return { type: 'issuance.authorization_declined', at: t };
    case 4:
      return { type: 'issuance.token_issued', at: t, token_hash: 't', token_type: 'DPoP', scope: 's' };
    case 5:
      return { type: 'issuance.nonce_challenged', at: t, side: 'as' };
    case 6:
      return { type: 'issuance.expired', at: t, reason: 'lapsed' };
    case 7:
      return { type: 'issuance.correlated', at: t, stream: `wallet-exchange:${t % 3}` };
    default:
      return {
        type: 'issuance.credential_issued',
        at: t,
        configuration_id: 'UniversityDegreeCredential',
        proof_count: 1,
        holder_jkts: ['k'],
        notification_id_hash: 'n',
      };
  }
};
const walletEvents: fc.Arbitrary<IssuanceEvent[]> = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: 8 })), { maxLength: 25 })
  .map((steps) => {
    let t = 0;
    return steps.map(([dt, kind]) => walletEvent((t += dt), kind));
  });
const deferredEvents: fc.Arbitrary<IssuanceEvent[]> = fc.array(
  fc.oneof(
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
  ),
  { maxLength: 20 },
);

/** Issuance with credentials (with and without status slots) and status changes of positions 0-3. */
const statusEvents = fc.array(
  fc.oneof(
    fc.constantFrom(0, 1, 2).map((slots) => ({
      type: 'issuance.credential_issued' as const,
      at: 1,
      configuration_id: 'c',
      proof_count: 2,
      holder_jkts: ['k', 'l'],
      notification_id_hash: 'n',
      statuses: Array.from({ length: slots }, (_, i) => ({ list_id: 'L', idx: i })),
    })),
    fc
      .tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom('valid', 'suspended', 'revoked') as fc.Arbitrary<'valid'>)
      .map(([n, status]) => ({
        type: 'credential.status_changed' as const,
        at: 2,
        n,
        status,
        value: { valid: 0, suspended: 2, revoked: 1 }[status],
        list_id: 'L',
        idx: n,
      })),
  ),
  { maxLength: 20 },
);

type Rule = {
  events: fc.Arbitrary<IssuanceEvent[]>;
  check: (events: IssuanceEvent[], machine: IssuanceMachine) => void;
};

/** The offer lifecycle's rules (decisions §8, OpenID4VCI 1.0), each over generated event sequences. */
const RULES: Record<string, Rule> = {
  'a token is issued at most once, only before expiry and before the code burns': {
    events: offerEvents,
    check(events, machine) {
      const { trace } = run(events, machine);
      const issued = trace.filter(
        (t) => t.event.type === 'issuance.token_issued' && t.after === 'token_issued' && t.before !== 'token_issued',
      );
      expect(issued.length).toBeLessThanOrEqual(1);
      for (const t of issued) {
        expect(t.event.at).toBeLessThan(EXPIRES);
        expect(t.failuresBefore).toBeLessThan(TX_CODE_ATTEMPTS);
      }
    },
  },
  'the fifth wrong tx_code burns the offer, and nothing moves an expired offer': {
    events: offerEvents,
    check(events, machine) {
      for (const t of run(events, machine).trace) {
        if (t.before === 'expired') expect(t.after).toBe('expired');
        if (t.event.type === 'issuance.tx_code_rejected' && (t.before === 'offered' || t.before === 'offer_fetched'))
          expect(t.after === 'expired').toBe(t.failuresBefore + 1 >= TX_CODE_ATTEMPTS);
      }
    },
  },
  'a live offer is fetched, and a fetch of a lapsed one changes nothing': {
    events: offerEvents,
    check(events, machine) {
      for (const t of run(events, machine).trace)
        if (t.event.type === 'issuance.offer_fetched' && (t.before === 'offered' || t.before === 'offer_fetched'))
          expect(t.after).toBe(t.event.at < EXPIRES ? 'offer_fetched' : t.before);
    },
  },
  'credentials follow a token; notifications follow a credential; credential_failure never follows credential_accepted':
    {
      events: offerEvents,
      check(events, machine) {
        for (const t of run(events, machine).trace) {
          if (t.after === 'credential_issued' && t.before !== 'credential_issued')
            expect(t.before).toBe('token_issued');
          if (t.after === 'notified' && t.before !== 'notified') expect(t.before).toBe('credential_issued');
          if (t.event.type === 'issuance.notified' && t.before === 'credential_issued')
            expect(t.after).toBe('notified');
          if (
            t.event.type === 'issuance.notified' &&
            t.event.event === 'credential_failure' &&
            t.notificationBefore === 'credential_accepted'
          )
            expect(t.after).toBe(t.before);
        }
      },
    },
  'wallet-initiated: a code only after the request_uri was used in time; a token only from a live code, once; challenges counted until the end; the first wallet exchange kept':
    {
      events: walletEvents,
      check(events, machine) {
        let [snapshot] = initialTransition(machine);
        let challenges = 0;
        let tokens = 0;
        let correlated: string | undefined;
        for (const e of events) {
          const before = snapshot;
          [snapshot] = transition(machine, snapshot, e);
          if (e.type === 'issuance.nonce_challenged' && before.value !== 'expired') challenges += 1;
          if (e.type === 'issuance.correlated') correlated ??= e.stream;
          if (e.type === 'issuance.authorization_started' && before.value === 'authorization_requested')
            expect(snapshot.value).toBe(
              e.at < before.context.par!.requestExpiresAt ? 'authorizing' : 'authorization_requested',
            );
          if (snapshot.value === 'code_issued' && before.value !== 'code_issued')
            expect(before.value).toBe('authorizing');
          if (e.type === 'issuance.token_issued' && before.value === 'code_issued') {
            const live = e.at < before.context.authCodeExpiresAt!;
            expect(snapshot.value).toBe(live ? 'token_issued' : 'code_issued');
            if (live) tokens += 1;
          }
          if (e.type === 'issuance.authorization_requested' && before.value === 'new')
            expect(snapshot.value).toBe('authorization_requested');
        }
        expect(tokens).toBeLessThanOrEqual(1);
        expect(snapshot.context.dpopNonceChallenges).toBe(challenges);
        expect(snapshot.context.walletExchange).toBe(correlated);
      },
    },
  'an offer for the authorization code grant is pushed for once; a pre-authorized one never': {
    events: fc
      .tuple(
        fc.constantFrom('pre-authorized_code' as const, 'authorization_code' as const),
        fc.array(at, { maxLength: 3 }),
      )
      .map(
        ([grant, times]) =>
          [
            {
              type: 'issuance.offered',
              at: 0,
              grant,
              configuration_ids: ['c'],
              expires_at: 600_000,
              by_value: false,
              user: 'alice',
            },
            ...times.map((t) => ({
              type: 'issuance.authorization_requested' as const,
              at: t,
              client_id: 'w',
              redirect_uri: 'https://w/cb',
              code_challenge: 'c',
              configuration_ids: ['c'],
              authorization_details: false,
              request_uri_hash: 'r',
              request_expires_at: t + 90_000,
            })),
          ] as IssuanceEvent[],
      ),
    check(events, machine) {
      let [snapshot] = initialTransition(machine);
      let pushed = 0;
      for (const e of events) {
        const before = snapshot;
        [snapshot] = transition(machine, snapshot, e);
        if (e.type !== 'issuance.authorization_requested') continue;
        const allowed = before.context.grant === 'authorization_code' && pushed === 0;
        expect(snapshot.value).toBe(allowed ? 'authorization_requested' : before.value);
        if (allowed) pushed++;
      }
    },
  },
  'status: only an issued credential with a status slot changes, and revocation is final': {
    events: statusEvents,
    check(events, machine) {
      const token: IssuanceEvent = {
        type: 'issuance.token_issued',
        at: 1,
        token_hash: 'h',
        token_type: 'Bearer',
        scope: 's',
      };
      const { snapshot: start } = run([token], machine);
      let snapshot = start;
      for (const e of events) {
        const before = snapshot.context.credentials;
        [snapshot] = transition(machine, snapshot, e);
        const after = snapshot.context.credentials;
        if (e.type !== 'credential.status_changed') continue;
        const target = before[e.n];
        const allowed = target !== undefined && target.listId !== undefined && target.status !== 'revoked';
        expect(after[e.n]?.status).toBe(allowed ? e.status : target?.status);
        expect(after.filter((_, i) => i !== e.n)).toEqual(before.filter((_, i) => i !== e.n));
      }
    },
  },
  'deferred: a deferred offer never issues directly, and collection waits for readyAt': {
    events: deferredEvents,
    check(events, machine) {
      let [snapshot] = initialTransition(machine);
      [snapshot] = transition(machine, snapshot, {
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
        [snapshot] = transition(machine, snapshot, e);
        if (e.type === 'issuance.credential_issued')
          expect(snapshot.value === 'credential_issued' && before.value === 'token_issued').toBe(false);
        if (e.type === 'issuance.deferred' && before.value === 'token_issued') expect(snapshot.value).toBe('deferred');
        if (e.type === 'issuance.deferred_collected' && before.value === 'deferred')
          expect(snapshot.value).toBe(e.at >= before.context.readyAt! ? 'credential_issued' : 'deferred');
      }
    },
  },
};

describe('issuance machine properties', () => {
  it.each(Object.entries(RULES))('%s', (_name, rule) => {
    fc.assert(
      fc.property(rule.events, (events) => rule.check(events, issuanceMachine)),
      { numRuns: 2000 },
    );
  });

  it('has a rule that fails when any one inverted guard is provided', () => {
    // npx vitest run test/property/issuer/issuance-machine.test.ts -t "inverted guard"
    for (const [name, mutated] of invertedGuards(issuanceMachine)) {
      const caught = Object.values(RULES).some(
        (rule) =>
          fc.check(
            fc.property(rule.events, (events) => rule.check(events, mutated)),
            { numRuns: 1000, seed: 7 },
          ).failed,
      );
      expect(caught, `inverting ${name} went unnoticed`).toBe(true);
    }
    // Thousands of generated runs per guard: about 4 s alone, several times that in a loaded full run.
  }, 120_000);
});
