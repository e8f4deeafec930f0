import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 45 item 18: a token signed with the origin's own agent key but naming no registered agent, or
// carrying no exp, is refused with 401 invalid_token and a challenge.
let server: TestServer;
let sign: (claims: Record<string, unknown>) => Promise<string>;
beforeAll(async () => {
  server = await startMainServer();
  const stored = JSON.parse(readFileSync(join(server.dataDir, 'keys.json'), 'utf8')) as Record<string, JWK[]>;
  const jwk = stored.agentauth.find((k) => k.alg === 'ES256')!;
  const key = await importJWK(jwk, 'ES256');
  sign = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: jwk.kid }).sign(key);
});
afterAll(() => server.close());

const me = (token: string) => fetch(`${server.url}/agentauth/me`, { headers: { authorization: `Bearer ${token}` } });
const claims = (extra: Record<string, unknown> = {}) => {
  const iat = Math.floor(server.clock.now() / 1000);
  return {
    iss: `${server.url}/agentauth`,
    aud: server.url,
    sub: 'agt_never_registered',
    scope: 'agent:read',
    iat,
    jti: 'forged',
    ...extra,
  };
};

describe('/agentauth/me refuses what no agent stands behind', () => {
  it('a well-signed token for an agent that does not exist is 401 invalid_token with WWW-Authenticate', async () => {
    const res = await me(await sign(claims({ exp: Math.floor(server.clock.now() / 1000) + 300 })));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('a well-signed token without exp is refused', async () => {
    const res = await me(await sign(claims()));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
  });
});
