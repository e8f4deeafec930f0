import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJwt } from '../../../services/crypto/jws.ts';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 46 §2: the credential endpoint's hand-written token check accepted an access token without `exp`.
// It now goes through the one guard and verifier, which require it.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server?.close();
});

describe('an access token of the issuer without exp', () => {
  it('is refused at the credential, deferred and notification endpoints with 401 invalid_token', async () => {
    const issuer = `${server.url}/oid4vci`;
    const nowS = Math.floor(server.clock.now() / 1000);
    const claims = { iss: issuer, aud: issuer, sub: 'alice', iat: nowS, jti: 'j1', scope: 'vc:university_degree' };
    const forever = signJwt(server.main.ctx.keys.signing('oid4vci', 'ES256'), { typ: 'at+jwt' }, claims);
    const withExp = signJwt(
      server.main.ctx.keys.signing('oid4vci', 'ES256'),
      { typ: 'at+jwt' },
      { ...claims, exp: nowS + 300 },
    );
    const refusal = async (path: string, token: string) => {
      const res = await fetch(`${server.url}${path}`, json({}, { authorization: `Bearer ${token}` }));
      return [path, res.status, (await res.json()) as { error: string; error_description: string }] as const;
    };
    for (const path of ['/oid4vci/credential', '/oid4vci/deferred_credential', '/oid4vci/notification']) {
      expect(await refusal(path, forever)).toEqual([
        path,
        401,
        { error: 'invalid_token', error_description: 'The access token is invalid or expired' },
      ]);
      // The same token with an exp passes the guard: what refuses it then is the endpoint's own rule.
      expect((await refusal(path, withExp))[2].error_description).not.toBe('The access token is invalid or expired');
    }
  });
});
