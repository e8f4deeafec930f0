import fc from 'fast-check';
import { initialTransition, transition, type AnyStateMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { signInSessionMachine, type SignInSessionEvent } from '../../../machines/sign-in-session.ts';
import { invertedGuards } from '../../support/inverted-guards.ts';

// Issue 49: the sign-in session machine (the OpenID Provider's and the SAML IdP's) over generated event sequences; its rules catch any one inverted guard.
const sp = fc.constantFrom('sp-a', 'sp-b', 'sp-c');
const event: fc.Arbitrary<SignInSessionEvent> = fc.oneof(
  fc.constant({
    type: 'session.started' as const,
    at: 1,
    user: 'alice',
    authnContext: 'pw',
    expiresAt: 100,
    place: 'saml-idp' as const,
  }),
  fc.tuple(fc.constantFrom('app-a', 'app-b'), fc.subarray(['openid', 'email', 'profile'])).map(([clientId, s]) => ({
    type: 'session.client_consented' as const,
    at: 2,
    clientId,
    scope: s.join(' '),
  })),
  sp.map((s) => ({
    type: 'session.sp_joined' as const,
    at: 2,
    sp: s,
    nameId: `n-${s}`,
    nameIdFormat: 'f',
    sessionIndex: `i-${s}`,
  })),
  fc.subarray(['sp-a', 'sp-b', 'sp-c']).map((pending) => ({
    type: 'logout.started' as const,
    at: 3,
    pending,
    requests: pending.map((s) => [s, `r-${s}`] as [string, string]),
  })),
  fc.tuple(sp, fc.boolean()).map(([s, ok]) => ({ type: 'logout.sp_answered' as const, at: 4, sp: s, ok })),
  fc.boolean().map((partial) => ({ type: 'session.ended' as const, at: 5, partial })),
);

function trace(machine: AnyStateMachine, list: SignInSessionEvent[]) {
  let [snapshot] = initialTransition(machine, undefined);
  return list.map((e) => {
    const before = snapshot;
    [snapshot] = transition(machine, snapshot, e as never);
    return { e, before, after: snapshot };
  });
}

type Rule = (machine: AnyStateMachine, list: SignInSessionEvent[]) => void;

const RULES: Record<string, Rule> = {
  'a logout answer is taken only from an SP still awaited, and only once (SAML profiles §4.4.3.2)': (machine, list) => {
    for (const { e, before, after } of trace(machine, list)) {
      if (e.type !== 'logout.sp_answered' || before.value !== 'loggingOut') continue;
      const awaited: string[] = before.context.logout.pending;
      if (awaited.includes(e.sp)) {
        expect(after.context.logout.pending).toEqual(awaited.filter((s) => s !== e.sp));
        expect(after.context.logout.failed.includes(e.sp)).toBe(!e.ok);
      } else expect(after).toBe(before);
    }
  },
  'a client keeps every scope consented in the session, and a consent names one client once (OIDC Core §3.1.2.1)': (
    machine,
    list,
  ) => {
    const consented = new Map<string, Set<string>>();
    for (const { e, before, after } of trace(machine, list)) {
      if (e.type === 'session.started' && before.value === 'absent') consented.clear();
      if (e.type !== 'session.client_consented') continue;
      if (before.value !== 'active') {
        expect(after).toBe(before);
        continue;
      }
      const scopes = consented.get(e.clientId) ?? new Set<string>();
      for (const s of e.scope.split(' ').filter(Boolean)) scopes.add(s);
      consented.set(e.clientId, scopes);
      const grants: Array<{ clientId: string; scope: string }> = after.context.grants;
      expect(grants.filter((g) => g.clientId === e.clientId)).toHaveLength(1);
      expect(
        new Set(
          grants
            .find((g) => g.clientId === e.clientId)!
            .scope.split(' ')
            .filter(Boolean),
        ),
      ).toEqual(scopes);
    }
  },
  'the session ends only when no SP is awaited (SAML core §3.7.3.2)': (machine, list) => {
    for (const { e, before, after } of trace(machine, list)) {
      if (e.type !== 'session.ended' || before.value !== 'loggingOut') continue;
      expect(after.value).toBe(before.context.logout.pending.length === 0 ? 'ended' : 'loggingOut');
    }
  },
};

describe('sign-in session machine', () => {
  const events = fc.array(event, { maxLength: 20 });
  it.each(Object.entries(RULES))('%s', (_name, rule) => {
    fc.assert(
      fc.property(events, (list) => rule(signInSessionMachine, list)),
      { numRuns: 1000 },
    );
  });

  it('has a rule that fails when any one guard is inverted', () => {
    const mutants = invertedGuards(signInSessionMachine);
    expect(mutants.map(([name]) => name).sort()).toEqual(['awaitedSp', 'noneAwaited']);
    for (const [guard, mutant] of mutants) {
      const caught = Object.values(RULES).some(
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
