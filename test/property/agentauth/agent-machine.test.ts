import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { agentMachine, scopeFor, type AgentEvent } from '../../../machines/agent.ts';
import { CLAIM_CODE_LIFETIME_MS, CLAIM_POLL_INTERVAL_MS, pollOutcome } from '../../../machines/claim-polling.ts';
import { fold, persistedState, restore } from '../../../services/actors/fold.ts';
import { invertedGuards } from '../../support/inverted-guards.ts';

type Snapshot = SnapshotFrom<typeof agentMachine>;
type AgentMachine = typeof agentMachine;

/** Commands a random session may issue; the clock moves by `dt` before each. */
type Step =
  | { kind: 'redeem'; which: number; dt: number }
  | { kind: 'claim'; dt: number }
  | { kind: 'poll'; dt: number }
  | { kind: 'approve' | 'decline'; stale: boolean; dt: number }
  | { kind: 'revoke'; dt: number };

const dt = fc.oneof(fc.integer({ min: 0, max: 7_000 }), fc.integer({ min: 0, max: 700_000 }));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('redeem' as const), which: fc.integer({ min: 0, max: 2 }), dt }),
  fc.record({ kind: fc.constant('claim' as const), dt }),
  fc.record({ kind: fc.constant('poll' as const), dt }),
  fc.record({ kind: fc.constantFrom('approve' as const, 'decline' as const), stale: fc.boolean(), dt }),
  fc.record({ kind: fc.constant('revoke' as const), dt }),
);

const T0 = Date.UTC(2026, 0, 1);

/** Plays a session: the service's decisions (which event to send) are mirrored from services/agentauth. */
function play(steps: Step[], machine: AgentMachine = agentMachine) {
  let [s] = initialTransition(machine);
  let now = T0;
  const accepted: Array<{ type: string; at: number; data: Record<string, unknown> }> = [];
  const observations: Array<{
    step: Step;
    before: Snapshot;
    event?: AgentEvent;
    ok: boolean;
    after: Snapshot;
    at: number;
  }> = [];
  const jtis = ['jti-0'];
  let codes = 0;
  const apply = (event: AgentEvent) => {
    const ok = s.can(event);
    const before = s;
    if (ok) {
      s = transition(machine, s, event)[0];
      const { type, at, ...data } = event;
      accepted.push({ type, at, data });
    }
    return { before, ok };
  };
  apply({
    type: 'agent.registered',
    at: now,
    agentId: 'agent-x',
    claimTokenHash: 'h',
    assertion: { jtiHash: 'jti-0', exp: Math.floor(now / 1000) + 600, nbf: Math.floor(now / 1000) },
  });
  for (const st of steps) {
    now += st.dt;
    let event: AgentEvent | undefined;
    switch (st.kind) {
      case 'redeem':
        event = { type: 'agent.assertion_redeemed', at: now, jtiHash: jtis[st.which] ?? 'never-issued' };
        break;
      case 'claim':
        codes++;
        event = { type: 'agent.claim_started', at: now, userCodeHash: `code-${codes}`, email: 'p@example.com' };
        break;
      case 'poll': {
        const claim = s.context.claim;
        const grants = s.value === 'claiming' && claim && pollOutcome(claim, now) === 'granted';
        const jti = `jti-${jtis.length}`;
        event = {
          type: 'agent.claim_polled',
          at: now,
          ...(grants
            ? { assertion: { jtiHash: jti, exp: Math.floor(now / 1000) + 600, nbf: Math.floor(now / 1000) } }
            : {}),
        };
        if (grants) jtis.push(jti);
        break;
      }
      case 'approve':
      case 'decline':
        event = {
          type: st.kind === 'approve' ? 'agent.claim_approved' : 'agent.claim_declined',
          at: now,
          userCodeHash: st.stale ? `code-${codes - 1}` : `code-${codes}`,
        };
        break;
      case 'revoke':
        event = { type: 'agent.revoked', at: now };
        break;
    }
    const { before, ok } = apply(event!);
    observations.push({ step: st, before, event, ok, after: s, at: now });
  }
  return { final: s, accepted, observations };
}

/** The rules of spec §3 the machine keeps, each a check over one random session. */
const RULES: Record<string, (steps: Step[], machine: AgentMachine) => void> = {
  'accepts each assertion jti at most once': (steps, machine) => {
    const { accepted } = play(steps, machine);
    const redeemed = accepted.filter((e) => e.type === 'agent.assertion_redeemed').map((e) => e.data.jtiHash);
    expect(new Set(redeemed).size).toBe(redeemed.length);
  },
  'answers slow_down exactly when a poll of a live claim comes less than 5 s after the previous one': (
    steps,
    machine,
  ) => {
    for (const o of play(steps, machine).observations) {
      if (o.step.kind !== 'poll' || !o.ok || o.after.value !== 'claiming') continue;
      const claim = o.before.context.claim!;
      const live = claim.status !== 'expired' && o.at < claim.expiresAt;
      if (!live) continue;
      const fast = claim.lastPollAt !== undefined && o.at - claim.lastPollAt < CLAIM_POLL_INTERVAL_MS;
      expect(o.after.context.lastPoll === 'slow_down').toBe(fast);
    }
  },
  'accepts no approval 600 s or more after the claim started, and polls after lapse are expired_token': (
    steps,
    machine,
  ) => {
    for (const o of play(steps, machine).observations) {
      const claim = o.before.context.claim;
      if (!claim) continue;
      const lapsed = o.at - claim.startedAt >= CLAIM_CODE_LIFETIME_MS;
      if ((o.step.kind === 'approve' || o.step.kind === 'decline') && lapsed) expect(o.ok).toBe(false);
      if (o.step.kind === 'poll' && lapsed && o.before.value === 'claiming')
        expect(o.after.context.lastPoll).toBe('expired_token');
    }
  },
  'a person decides a live, pending claim by its current code, and only then': (steps, machine) => {
    for (const o of play(steps, machine).observations) {
      if (o.step.kind !== 'approve' && o.step.kind !== 'decline') continue;
      const claim = o.before.context.claim;
      const decidable =
        o.before.value === 'claiming' &&
        claim !== undefined &&
        claim.status === 'pending' &&
        !o.step.stale &&
        o.at < claim.expiresAt;
      expect(o.ok, JSON.stringify(o.step)).toBe(decidable);
    }
  },
  'a poll is recorded whenever a claim is pending, and grants exactly when the person approved and pace allows': (
    steps,
    machine,
  ) => {
    for (const o of play(steps, machine).observations) {
      if (o.step.kind !== 'poll' || o.before.value !== 'claiming') continue;
      expect(o.ok).toBe(true);
      const grants = pollOutcome(o.before.context.claim!, o.at) === 'granted';
      expect(o.after.value).toBe(grants ? 'claimed' : 'claiming');
    }
  },
  'a claimed agent holds write scope and its replacement assertion is marked claimed; revoked agents redeem nothing': (
    steps,
    machine,
  ) => {
    const { observations, final } = play(steps, machine);
    for (const o of observations) {
      if (o.after.value === 'claimed' && o.before.value !== 'claimed') {
        expect(scopeFor(o.after.context.claimedAt !== undefined)).toBe('agent:read agent:write');
        const granted = (o.event as Extract<AgentEvent, { type: 'agent.claim_polled' }>).assertion!;
        expect(o.after.context.assertions[granted.jtiHash].claimed).toBe(true);
        expect(o.after.context.ownerEmail).toBe('p@example.com');
      }
      if (o.before.value === 'revoked') expect(o.ok).toBe(false);
    }
    if (final.value === 'revoked')
      expect(final.can({ type: 'agent.assertion_redeemed', at: T0, jtiHash: 'jti-0' })).toBe(false);
  },
};

const sessions = fc.array(step, { maxLength: 40 });

describe('agent machine (properties over random sessions)', () => {
  it.each(Object.entries(RULES))('%s', (_name, rule) => {
    fc.assert(
      fc.property(sessions, (steps) => rule(steps, agentMachine)),
      { numRuns: 300 },
    );
  });

  it('has a rule that fails when any one inverted guard is provided', () => {
    // npx vitest run test/property/agentauth/agent-machine.test.ts -t "inverted guard"
    for (const [name, mutated] of invertedGuards(agentMachine)) {
      const caught = Object.values(RULES).some(
        (rule) =>
          fc.check(
            fc.property(sessions, (steps) => rule(steps, mutated)),
            { numRuns: 300, seed: 7 },
          ).failed,
      );
      expect(caught, `inverting ${name} went unnoticed`).toBe(true);
    }
  });
  it('folding the accepted events reproduces the live state, also from a JSON snapshot midway', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.nat(), (steps, cut) => {
        const { final, accepted } = play(steps);
        const stored = accepted.map((e, i) => ({ ...e, sequence: i + 1, version: i + 1, streamId: 'agent:x' }));
        expect(persistedState(fold(agentMachine, stored))).toEqual(persistedState(final));
        const k = cut % (stored.length + 1);
        const mid = JSON.parse(JSON.stringify(persistedState(fold(agentMachine, stored.slice(0, k)))));
        expect(persistedState(fold(agentMachine, stored.slice(k), restore(agentMachine, mid)))).toEqual(
          persistedState(final),
        );
      }),
      { numRuns: 300 },
    );
  });
});
