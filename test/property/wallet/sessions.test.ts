import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../services/clock.ts';
import { WalletSessions, type WalletSession } from '../../../services/wallet/sessions.ts';

const policy = {
  ttlMs: 60_000,
  strict: true,
  signingAlg: 'ES256' as const,
  didMethod: 'key' as const,
  walletHost: 'wallet.test',
  maxSessions: 1000,
};
const ids = fc.constantFrom('a', 'b', 'c', 'ws_d', 'e.f');

type Op =
  { kind: 'touch'; id: string } | { kind: 'store'; id: string; credential: string } | { kind: 'advance'; ms: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  ids.map((id) => ({ kind: 'touch' as const, id })),
  fc
    .record({ id: ids, credential: fc.string({ minLength: 1, maxLength: 6 }) })
    .map((r) => ({ kind: 'store' as const, ...r })),
  fc.integer({ min: 0, max: 70_000 }).map((ms) => ({ kind: 'advance' as const, ms })),
);

/** What each session should hold: its credentials, and the holder key it was created with. */
interface Model {
  credentials: string[];
  expiresAt: number;
  kid?: string;
}

describe('wallet sessions (issue 17)', () => {
  it('property: no sequence of operations on one session, run concurrently, changes another', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { maxLength: 6 }), { minLength: 1, maxLength: 5 }), async (batches) => {
        const clock = new ManualClock(1_000_000);
        const sessions = new WalletSessions(policy, clock);
        const model = new Map<string, Model>();
        const live = (id: string) => {
          const m = model.get(id);
          return m && m.expiresAt > clock.now() ? m : undefined;
        };
        for (const batch of batches) {
          // Model first (in order), then the same operations concurrently against the store.
          const touches: Array<Promise<WalletSession>> = [];
          for (const o of batch) {
            if (o.kind === 'advance') continue;
            if (!live(o.id)) model.set(o.id, { credentials: [], expiresAt: 0 });
            model.get(o.id)!.expiresAt = clock.now() + policy.ttlMs;
          }
          for (const o of batch) if (o.kind !== 'advance') touches.push(sessions.resolve(o.id).then((r) => r.session));
          const resolved = await Promise.all(touches);
          let i = 0;
          for (const o of batch) {
            if (o.kind === 'advance') continue;
            const session = resolved[i++];
            expect(session.id).toBe(o.id);
            const m = model.get(o.id)!;
            m.kid ??= session.holder.kid;
            expect(session.holder.kid).toBe(m.kid);
            if (o.kind === 'store') {
              session.credentials.set(o.credential, {
                credential_id: o.credential,
                format: 'dc+sd-jwt',
                batch_secondary: false,
                claims: {},
                credential: o.credential,
              });
              if (!m.credentials.includes(o.credential)) m.credentials.push(o.credential);
            }
          }
          for (const o of batch) if (o.kind === 'advance') clock.advance(o.ms);
          for (const [id, m] of model) {
            if (m.expiresAt <= clock.now()) {
              model.delete(id);
              continue;
            }
            const session = sessions.peek(id)!;
            expect([...session.credentials.keys()].sort()).toEqual([...m.credentials].sort());
            expect(session.holder.kid).toBe(m.kid);
          }
        }
        const kids = [...model.keys()].map((id) => sessions.peek(id)!.holder.kid);
        expect(new Set(kids).size).toBe(kids.length);
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it('TTL slides with every use and a lapsed id starts empty (injected clock)', async () => {
    const clock = new ManualClock(0);
    const sessions = new WalletSessions(policy, clock);
    const first = (await sessions.resolve('s1')).session;
    first.credentials.set('c', {
      credential_id: 'c',
      format: 'mso_mdoc',
      batch_secondary: false,
      claims: {},
      credential: 'x',
    });
    clock.advance(59_000);
    expect((await sessions.resolve('s1')).session).toBe(first);
    clock.advance(59_000);
    expect(sessions.expiresIn((await sessions.resolve('s1')).session)).toBe(60);
    clock.advance(60_000);
    const lapsed = (await sessions.resolve('s1')).session;
    expect(lapsed).not.toBe(first);
    expect(lapsed.credentials.size).toBe(0);
    expect(lapsed.holder.kid).not.toBe(first.holder.kid);
    clock.advance(60_000);
    expect(sessions.sweep()).toBe(1);
    expect(sessions.size).toBe(0);
  });

  it('mints ws_ ids under strict isolation, shares one session without it, refuses malformed ids', async () => {
    const strict = new WalletSessions(policy, new ManualClock(0));
    const a = await strict.resolve(undefined);
    const b = await strict.resolve(undefined);
    expect(a.minted && b.minted).toBe(true);
    expect(a.session.id).toMatch(/^ws_[A-Za-z0-9_-]{22}$/);
    expect(a.session.id).not.toBe(b.session.id);
    const shared = new WalletSessions({ ...policy, strict: false }, new ManualClock(0));
    expect((await shared.resolve(undefined)).session.id).toBe('shared');
    await expect(strict.resolve('has space')).rejects.toMatchObject({ error: 'invalid_request' });
    await expect(strict.resolve('x'.repeat(129))).rejects.toMatchObject({ error: 'invalid_request' });
  });

  it('bounds the sessions held: past the bound the one closest to expiry goes', async () => {
    const clock = new ManualClock(0);
    const sessions = new WalletSessions({ ...policy, maxSessions: 3 }, clock);
    for (const id of ['a', 'b', 'c']) {
      await sessions.resolve(id);
      clock.advance(10);
    }
    await sessions.resolve('d');
    expect(sessions.size).toBe(3);
    expect(sessions.peek('a')).toBeUndefined();
    expect(sessions.peek('d')).toBeDefined();
  });
});
