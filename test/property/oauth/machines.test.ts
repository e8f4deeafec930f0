import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { authorizationCodeMachine, type CodeEvent } from '../../../machines/authorization-code.ts';
import { refreshFamilyMachine, type RefreshEvent } from '../../../machines/refresh-family.ts';

const T0 = Date.UTC(2026, 0, 1);

describe('authorization code machine', () => {
  it('redeems at most once, never at or after expiry, and a replay is only possible after a redemption', () => {
    const step = fc.record({ kind: fc.constantFrom('redeem', 'replay'), dt: fc.integer({ min: 0, max: 40_000 }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        let [s] = initialTransition(authorizationCodeMachine);
        [s] = transition(authorizationCodeMachine, s, {
          type: 'code.issued',
          at: T0,
          issuer: 'i',
          clientId: 'c',
          redirectUri: 'r',
          scope: 'openid',
          sub: 'alice',
          authTime: T0,
          expiresAt: T0 + 60_000,
        });
        let now = T0;
        let redemptions = 0;
        for (const st of steps) {
          now += st.dt;
          const event: CodeEvent =
            st.kind === 'redeem'
              ? { type: 'code.redeemed', at: now, accessJti: `j${now}` }
              : { type: 'code.replayed', at: now, revokesAccess: [] };
          const before = s.value;
          const ok = s.can(event);
          if (ok) [s] = transition(authorizationCodeMachine, s, event);
          if (st.kind === 'redeem' && ok) {
            redemptions++;
            expect(now).toBeLessThan(T0 + 60_000);
          }
          if (st.kind === 'replay') expect(ok).toBe(before === 'redeemed');
        }
        expect(redemptions).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });
});

describe('refresh family machine', () => {
  it('only the current token rotates; presenting a retired one revokes the family for good', () => {
    const step = fc.record({
      which: fc.integer({ min: 0, max: 5 }),
      dt: fc.integer({ min: 0, max: 3 * 24 * 3600 * 1000 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 15 }), (steps) => {
        let [s] = initialTransition(refreshFamilyMachine);
        [s] = transition(refreshFamilyMachine, s, {
          type: 'refresh.issued',
          at: T0,
          tokenHash: 'h0',
          accessJti: 'a0',
          issuer: 'i',
          clientId: 'c',
          sub: 'alice',
          scope: 'openid',
          authTime: T0,
          expiresAt: T0 + 7 * 24 * 3600 * 1000,
        });
        const issued = ['h0'];
        let now = T0;
        for (const st of steps) {
          now += st.dt;
          const presented = issued[st.which % issued.length];
          const current = s.context.currentHash;
          const rotate: RefreshEvent = {
            type: 'refresh.rotated',
            at: now,
            presentedHash: presented,
            tokenHash: `h${issued.length}`,
            accessJti: `a${issued.length}`,
          };
          const wasActive = s.value === 'active';
          if (s.can(rotate)) {
            expect(presented).toBe(current);
            expect(now).toBeLessThan(s.context.grant!.expiresAt);
            [s] = transition(refreshFamilyMachine, s, rotate);
            issued.push(rotate.tokenHash);
            continue;
          }
          const reuse: RefreshEvent = {
            type: 'refresh.reused',
            at: now,
            presentedHash: presented,
            revokesAccess: s.context.accessJtis,
          };
          if (s.can(reuse)) {
            expect(presented).not.toBe(current);
            [s] = transition(refreshFamilyMachine, s, reuse);
          }
          if (!wasActive) expect(s.value).toBe('revoked');
        }
        if (s.value === 'revoked') {
          expect(
            s.can({
              type: 'refresh.rotated',
              at: now,
              presentedHash: s.context.currentHash!,
              tokenHash: 'x',
              accessJti: 'y',
            }),
          ).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});
