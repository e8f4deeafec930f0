import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { randomBase32, randomBytes, timeOrderedBase32, timeOrderedToken } from '../../../services/crypto/random.ts';

describe('random identifiers', () => {
  it('time-ordered ids are 16 base32 characters that sort by their millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 - 2 }), fc.integer({ min: 1, max: 10 ** 9 }), (t, gap) => {
        const a = timeOrderedBase32(t);
        const b = timeOrderedBase32(Math.min(t + gap, 2 ** 45 - 1));
        expect(a).toMatch(/^[a-z2-7]{16}$/);
        expect(a < b).toBe(true);
      }),
    );
  });

  it('time-ordered tokens are base64url, sort by their millisecond and carry the random bytes asked for', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 2 }), fc.integer({ min: 1, max: 10 ** 9 }), (t, gap) => {
        const a = timeOrderedToken(t, 12);
        const b = timeOrderedToken(Math.min(t + gap, 2 ** 48 - 1), 12);
        expect(a).toMatch(/^[A-Za-z0-9_-]{24}$/);
        // Byte order, as an index compares text.
        expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).toBe(-1);
      }),
    );
    const same = new Set(Array.from({ length: 10_000 }, () => timeOrderedToken(1_800_000_000_000, 12)));
    expect(same.size).toBe(10_000);
    expect(new Set([...same].map((id) => id.slice(0, 8))).size).toBe(1);
  });

  it('ids of the same millisecond differ in their random part', () => {
    // 7 base32 characters are 35 random bits: 10,000 ids in one millisecond collide about once in 700
    // runs (the birthday bound), which made this test flaky; 1,000 collide about once in 70,000.
    const ids = new Set(Array.from({ length: 1_000 }, () => timeOrderedBase32(1_800_000_000_000)));
    expect(ids.size).toBe(1_000);
    expect(new Set([...ids].map((id) => id.slice(0, 9))).size).toBe(1);
  });

  it('pooled random bytes are never handed out twice', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) seen.add(randomBytes(16).toString('hex'));
    expect(seen.size).toBe(2_000);
    expect(randomBytes(5_000)).toHaveLength(5_000);
    expect(randomBase32(40)).toMatch(/^[a-z2-7]{40}$/);
  });
});
