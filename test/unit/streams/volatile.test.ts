import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isVolatileName, isVolatileValuePair, normalizeUrl } from '../../../services/streams/volatile.ts';

// Issue 31: what a diff treats as differing on every run by nature, and what it never hides.
describe('volatile values of a run diff', () => {
  it('names ids, times, nonces, codes, state and secrets as volatile; never scope, client_id or grant_type', () => {
    for (const name of [
      'jti',
      'iat',
      'exp',
      'nbf',
      'nonce',
      'state',
      'code',
      'run_id',
      'issued_at',
      'token_hash',
      'dpop',
    ])
      expect(isVolatileName(name), name).toBe(true);
    for (const name of ['scope', 'client_id', 'grant_type', 'token_type', 'status', 'redirect_uri', 'aud', 'iss'])
      expect(isVolatileName(name), name).toBe(false);
  });

  it('treats two random-looking tokens, two timestamps or two redacted secrets as volatile', () => {
    expect(isVolatileValuePair('Zm9vYmFyYmF6cXV4MTIzNA', 'cXV4YmF6YmFyZm9vOTg3Ng')).toBe(true);
    expect(isVolatileValuePair('2026-11-26T10:00:00.000Z', '2026-11-27T11:00:00Z')).toBe(true);
    expect(isVolatileValuePair('[redacted hmac:abc]', '[redacted hmac:def]')).toBe(true);
    expect(isVolatileValuePair('api:read', 'api:read api:write')).toBe(false);
    expect(isVolatileValuePair('Bearer', 'DPoP')).toBe(false);
    expect(isVolatileValuePair(200, 400)).toBe(false);
  });

  it('compares URLs with their random path segments and volatile query values set aside, and nothing else', () => {
    const a = 'https://x.test/cb?code=Q29kZTEyMzQ1Njc4OTAxMjM0&state=c3RhdGUxMjM0NTY3ODkwMTIz&iss=https%3A%2F%2Fx.test';
    const b = 'https://x.test/cb?code=T3RoZXJjb2RlOTg3NjU0MzIx&state=YW5vdGhlcnN0YXRlOTg3NjU0&iss=https%3A%2F%2Fx.test';
    expect(isVolatileValuePair(a, b)).toBe(true);
    expect(isVolatileValuePair(a, b.replace('x.test/cb', 'x.test/other'))).toBe(false);
    expect(isVolatileValuePair(a, `${b}&scope=openid`)).toBe(false);
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true }), (url) => {
        expect(normalizeUrl(url)).toBe(normalizeUrl(url));
        expect(isVolatileValuePair(url, url)).toBe(true);
      }),
    );
  });
});
