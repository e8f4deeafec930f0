import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isS256Challenge, verifierMatches } from '../../../services/oauth/pkce.ts';

// Issue 37: one PKCE rule for both authorization servers (RFC 7636 §4.1-4.6, S256 only).
const unreserved = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'.split(''));
const verifier = fc.string({ unit: unreserved, minLength: 43, maxLength: 128 });
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');

describe('PKCE (property)', () => {
  it("every well-formed verifier matches its own S256 challenge and no other verifier's", () => {
    fc.assert(
      fc.property(verifier, verifier, (a, b) => {
        expect(isS256Challenge(s256(a))).toBe(true);
        expect(verifierMatches(a, s256(a))).toBe(true);
        if (a !== b) expect(verifierMatches(b, s256(a))).toBe(false);
      }),
    );
  });

  it('verifiers outside 43-128 unreserved characters never match, even against their own digest', () => {
    const bad = fc.oneof(
      fc.string({ unit: unreserved, maxLength: 42 }),
      fc.string({ unit: unreserved, minLength: 129, maxLength: 200 }),
      fc.string({ minLength: 43, maxLength: 60 }).filter((s) => /[^A-Za-z0-9\-._~]/.test(s)),
    );
    fc.assert(
      fc.property(bad, (v) => {
        expect(verifierMatches(v, s256(v))).toBe(false);
      }),
    );
  });

  it('a challenge is 43 base64url characters, nothing else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (c) => {
        expect(isS256Challenge(c)).toBe(/^[A-Za-z0-9_-]{43}$/.test(c));
      }),
    );
  });
});
