import { SignJWT, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 30 (time and flakiness): openid-client's private_key_jwt test failed when its assertion's iat
// was a second ahead of the server's clock. Client assertions now get the service's 15 s skew.
let server: TestServer;
let key: { jwk: JWK; privateKey: CryptoKey | Uint8Array };
beforeAll(async () => {
  server = await startMainServer();
  const clients = (
    (await (await fetch(`${server.url}/oauth2/demo/clients`)).json()) as {
      clients: Array<{ client_id: string; private_jwks?: { keys: JWK[] } }>;
    }
  ).clients;
  const jwk = clients.find((c) => c.client_id === 'pkjwt-app')!.private_jwks!.keys.find((k) => k.alg === 'ES256')!;
  key = { jwk, privateKey: await importJWK(jwk, 'ES256') };
});
afterAll(async () => {
  await server.close();
});

const assertionAhead = (seconds: number) => {
  const iat = Math.floor(server.clock.now() / 1000) + seconds;
  return new SignJWT({ jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: 'ES256', kid: key.jwk.kid })
    .setIssuer('pkjwt-app')
    .setSubject('pkjwt-app')
    .setAudience(`${server.url}/oauth2/token`)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + 60)
    .sign(key.privateKey);
};
const token = async (assertion: string) =>
  exchange(
    server.url,
    '/oauth2/token',
    form({
      grant_type: 'client_credentials',
      scope: 'api:read',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    }),
  );

describe('client assertions from a clock that runs ahead', () => {
  it('[issue 30 clock skew] iat and nbf 14 s ahead are accepted; 16 s ahead are invalid_client', async () => {
    expect((await token(await assertionAhead(14))).status).toBe(200);
    const late = await token(await assertionAhead(16));
    expect(late.status).toBe(401);
    expect(late.body.error).toBe('invalid_client');
  });
});
