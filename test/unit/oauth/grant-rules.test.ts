import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../../services/errors.ts';
import { checkCodeVerifier } from '../../../services/oauth/token/authorization-code.ts';
import { idTokenClaims } from '../../../services/oauth/token/id-token.ts';
import { narrowedScope } from '../../../services/oauth/token/refresh-token.ts';

// Issue 37: each rule of a grant is a named function that can be tested alone.
const SCOPES = ['openid', 'profile', 'email', 'offline_access', 'api:read', 'api:write'];
const codeOf = (f: () => unknown) => {
  try {
    f();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    return (error as OAuthError).error;
  }
};

describe('refresh: narrowedScope (RFC 6749 §6)', () => {
  it('keeps the granted scope when none is asked, and never grants more than was granted', () => {
    fc.assert(
      fc.property(fc.subarray(SCOPES, { minLength: 1 }), fc.subarray(SCOPES), (granted, asked) => {
        const grantedText = granted.join(' ');
        expect(narrowedScope(grantedText, undefined)).toBe(grantedText);
        const wider = asked.some((s) => !granted.includes(s));
        const outcome = codeOf(() => narrowedScope(grantedText, asked.join(' ')));
        if (wider) expect(outcome).toBe('invalid_scope');
        else expect(narrowedScope(grantedText, asked.join(' ')).split(' ').filter(Boolean)).toEqual(asked);
      }),
    );
  });
});

describe('authorization code: checkCodeVerifier (RFC 7636 §4.6)', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  it('a code issued with a challenge needs its verifier', () => {
    expect(codeOf(() => checkCodeVerifier(verifier, challenge))).toBeUndefined();
    expect(codeOf(() => checkCodeVerifier(undefined, challenge))).toBe('invalid_grant');
    expect(codeOf(() => checkCodeVerifier(`${verifier.slice(0, -1)}A`, challenge))).toBe('invalid_grant');
  });

  it('a code issued without a challenge takes no verifier', () => {
    expect(codeOf(() => checkCodeVerifier(undefined, undefined))).toBeUndefined();
    expect(codeOf(() => checkCodeVerifier(verifier, undefined))).toBe('invalid_grant');
  });
});

describe('ID token: idTokenClaims', () => {
  it('carries the scope claims but never a second sub', () => {
    expect(idTokenClaims({ sub: 'alice', name: 'Alice', email: 'a@example.com' })).toEqual({
      name: 'Alice',
      email: 'a@example.com',
    });
  });
});
