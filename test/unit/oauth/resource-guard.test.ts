import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileKeyRing } from '../../../adapters/keys/file-key-ring.ts';
import { signJwt } from '../../../services/crypto/jws.ts';
import { CLOCK_SKEW_S } from '../../../services/crypto/time-claims.ts';
import { OAuthError } from '../../../services/errors.ts';
import { verifyAccessTokenJwt, type AccessTokenRules } from '../../../services/oauth/access-token-verifier.ts';
import { ResourceGuard } from '../../../services/oauth/resource-guard.ts';

// Issue 46 §2: one access-token verifier (jose's jwtVerify, a required exp, the 15 s skew) and one guard.
const NOW_S = 1_900_000_000;
const rules: AccessTokenRules = {
  issuer: 'https://as.example',
  audience: 'https://rs.example',
  typ: 'at+jwt',
  keySet: 'as',
};
let dir: string;
let keys: FileKeyRing;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'guard-'));
  keys = await FileKeyRing.open(join(dir, 'keys.json'), [['as', 'ES256']]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const token = (claims: Record<string, unknown>, header: Record<string, unknown> = { typ: 'at+jwt' }) =>
  signJwt(keys.signing('as', 'ES256'), header, {
    iss: rules.issuer,
    aud: rules.audience,
    sub: 'alice',
    scope: 'read',
    iat: NOW_S,
    exp: NOW_S + 300,
    ...claims,
  });
const verify = (jwt: string, nowS = NOW_S) => verifyAccessTokenJwt(keys, rules, jwt, nowS * 1000);

describe('the access-token verifier', () => {
  it('takes a token of its issuer, audience and typ', async () => {
    expect(await verify(token({}))).toMatchObject({ sub: 'alice', scope: 'read' });
  });

  it('refuses a token without exp (the hand-written verifier it replaced accepted one)', async () => {
    expect(await verify(token({ exp: undefined }))).toBeUndefined();
  });

  it('allows the 15 s clock skew on exp and nbf, and not a second more', async () => {
    const jwt = token({});
    expect(await verify(jwt, NOW_S + 300 + CLOCK_SKEW_S - 1)).toBeDefined();
    expect(await verify(jwt, NOW_S + 300 + CLOCK_SKEW_S + 1)).toBeUndefined();
    expect(await verify(token({ nbf: NOW_S + CLOCK_SKEW_S - 1 }))).toBeDefined();
    expect(await verify(token({ nbf: NOW_S + CLOCK_SKEW_S + 2 }))).toBeUndefined();
  });

  it('refuses another typ, issuer or audience, and a token without sub or scope', async () => {
    for (const jwt of [
      token({}, { typ: 'JWT' }),
      token({ iss: 'https://elsewhere.example' }),
      token({ aud: 'https://other-rs.example' }),
      token({ sub: undefined }),
      token({ scope: undefined }),
    ])
      expect(await verify(jwt)).toBeUndefined();
  });
});

describe('the resource guard', () => {
  const guard = new ResourceGuard({
    verify: (jwt) => verify(jwt),
    scope: 'read',
    resourceMetadata: 'https://rs.example/.well-known/oauth-protected-resource',
    subject: (claims) => (claims.sub === 'alice' ? { name: 'Alice' } : undefined),
  });
  const refusal = async (request: Parameters<typeof guard.admit>[0]) => {
    const error = await guard.admit(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    const e = error as OAuthError;
    return [e.status, e.error, e.headers['www-authenticate']] as const;
  };
  const at = { method: 'GET', url: 'https://rs.example/thing' };

  it('admits a valid token with its subject', async () => {
    const admitted = await guard.admit({ ...at, authorization: `Bearer ${token({})}` });
    expect(admitted).toMatchObject({ scheme: 'Bearer', subject: { name: 'Alice' }, scopes: ['read'] });
  });

  it('answers each refusal with its status, code and challenge', async () => {
    const [missing] = [await refusal(at)];
    expect(missing.slice(0, 2)).toEqual([401, 'invalid_token']);
    expect(missing[2]).toContain('resource_metadata="https://rs.example/.well-known/oauth-protected-resource"');
    expect((await refusal({ ...at, authorization: 'Bearer' })).slice(0, 2)).toEqual([401, 'invalid_token']);
    expect((await refusal({ ...at, authorization: `Bearer ${token({ exp: undefined })}` })).slice(0, 2)).toEqual([
      401,
      'invalid_token',
    ]);
    const scope = await refusal({ ...at, authorization: `Bearer ${token({ scope: 'write' })}` });
    expect(scope.slice(0, 2)).toEqual([403, 'insufficient_scope']);
    expect(scope[2]).toContain('scope="read"');
    expect((await refusal({ ...at, authorization: `Bearer ${token({ sub: 'mallory' })}` })).slice(0, 2)).toEqual([
      401,
      'invalid_token',
    ]);
  });

  it('refuses an unbound token under DPoP, and a bound one where the resource takes no DPoP', async () => {
    expect(await refusal({ ...at, authorization: `DPoP ${token({})}` })).toEqual([
      401,
      'invalid_token',
      expect.stringMatching(/^DPoP /),
    ]);
    const bound = token({ cnf: { jkt: 'x' } });
    expect((await refusal({ ...at, authorization: `Bearer ${bound}` })).slice(0, 2)).toEqual([401, 'invalid_token']);
    expect((await refusal({ ...at, authorization: `DPoP ${bound}`, dpop: 'proof' })).slice(0, 2)).toEqual([
      401,
      'invalid_token',
    ]);
  });
});
