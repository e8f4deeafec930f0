import * as client from 'openid-client';
import { decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
let demo: { clients: Array<Record<string, any>>; users: Array<Record<string, any>> };
beforeAll(async () => {
  server = await startMainServer();
  demo = {
    clients: ((await (await fetch(`${server.url}/oauth2/demo/clients`)).json()) as any).clients,
    users: ((await (await fetch(`${server.url}/oauth2/demo/users`)).json()) as any).users,
  };
});
afterAll(async () => {
  await server.close();
});

const demoClient = (id: string) => demo.clients.find((c) => c.client_id === id)!;
const redirectUri = () => `${server.url}/callback`;
const insecure = { execute: [client.allowInsecureRequests] };
// openid-client checks iat/exp against the real clock; keep the server's manual clock near it.
const realTime = () => server.clock.set(Date.now());

async function discover(
  issuer: string,
  clientId: string,
  auth: client.ClientAuth,
  metadata: Partial<client.ClientMetadata> = {},
) {
  realTime();
  // The OAuth 2.0 server publishes RFC 8414 metadata only (path-inserted well-known URI).
  const algorithm = issuer.endsWith('/oauth2') ? 'oauth2' : 'oidc';
  return client.discovery(new URL(issuer), clientId, metadata, auth, { ...insecure, algorithm });
}

async function codeFlow(config: client.Configuration, extra: Record<string, string> = {}, dpop?: client.DPoPHandle) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(),
    scope: 'openid profile email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  const landed = await authorizeAsBrowser(url);
  expect(landed.location, JSON.stringify(landed.pages.at(-1)?.body?.slice(0, 300))).toBeDefined();
  const tokens = await client.authorizationCodeGrant(
    config,
    new URL(landed.location!),
    { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
    undefined,
    dpop ? { DPoP: dpop } : undefined,
  );
  return tokens;
}

describe('openid-client against the OpenID Provider', () => {
  it('discovers, runs authorization code + PKCE with the login and consent forms, validates the ID token and calls UserInfo', async () => {
    const config = await discover(
      server.url,
      'demo-app',
      client.ClientSecretBasic(demoClient('demo-app').client_secret),
    );
    expect(config.serverMetadata().issuer).toBe(server.url);
    const tokens = await codeFlow(config);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    const idClaims = tokens.claims()!;
    expect(idClaims).toMatchObject({ iss: server.url, aud: 'demo-app', sub: 'alice', email: 'alice@example.com' });
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('RS256');
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
    expect(info).toMatchObject({
      sub: 'alice',
      name: 'Alice Anderson',
      email: 'alice@example.com',
      email_verified: true,
    });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.claims()!.sub).toBe('alice');
  });

  it('public client with PKCE and no secret; form_post response mode', async () => {
    const config = await discover(server.url, 'public-app', client.None());
    const tokens = await codeFlow(config);
    expect(tokens.claims()!.aud).toBe('public-app');

    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri(),
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 's1',
      nonce: 'n1',
      response_mode: 'form_post',
    });
    const landed = await authorizeAsBrowser(url);
    expect(landed.formPost?.action).toBe(redirectUri());
    expect(landed.formPost?.fields).toMatchObject({ state: 's1', iss: server.url });
    const request = new Request(redirectUri(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(landed.formPost!.fields),
    });
    const posted = await client.authorizationCodeGrant(config, request, {
      pkceCodeVerifier: verifier,
      expectedState: 's1',
      expectedNonce: 'n1',
    });
    expect(posted.claims()!.nonce).toBe('n1');
  });

  it('client_secret_post works for its client', async () => {
    const config = await discover(
      server.url,
      'demo-app-post',
      client.ClientSecretPost(demoClient('demo-app-post').client_secret),
    );
    const tokens = await codeFlow(config);
    expect(tokens.claims()!.aud).toBe('demo-app-post');
  });

  it('private_key_jwt with each published key (RS256, ES256, EdDSA)', async () => {
    const record = demoClient('pkjwt-app');
    for (const alg of ['RS256', 'ES256', 'EdDSA']) {
      const jwk = record.private_jwks.keys.find((k: JWK) => k.alg === alg) as JWK;
      const key = await importJWK(jwk, alg);
      const config = await discover(
        `${server.url}/oauth2`,
        'pkjwt-app',
        client.PrivateKeyJwt(key as CryptoKey, {
          [client.modifyAssertion]: (header: Record<string, unknown>) => {
            header.kid = jwk.kid;
            // openid-client names an Ed25519 key's signature by RFC 9864's "Ed25519"; the specification
            // lists exactly RS256, ES256 and EdDSA (issue 45 item 6), so the client is configured to
            // say EdDSA, which names the very same signature.
            if (header.alg === 'Ed25519') header.alg = 'EdDSA';
          },
        }),
      );
      const tokens = await client.clientCredentialsGrant(config, { scope: 'api:read' }).catch((e) => {
        throw new Error(`${alg}: ${e.message} ${JSON.stringify(e.cause ?? e.error)}`);
      });
      expect(decodeJwt(tokens.access_token)).toMatchObject({
        client_id: 'pkjwt-app',
        scope: 'api:read',
        iss: `${server.url}/oauth2`,
      });
    }
  });
});

describe('openid-client against the OAuth 2.0 authorization server', () => {
  it('client credentials with each secret-based method', async () => {
    for (const [id, auth] of [
      ['machine-client', client.ClientSecretBasic(demoClient('machine-client').client_secret)],
      ['demo-app', client.ClientSecretBasic(demoClient('demo-app').client_secret)],
      ['demo-app-post', client.ClientSecretPost(demoClient('demo-app-post').client_secret)],
    ] as const) {
      const config = await discover(`${server.url}/oauth2`, id, auth);
      const tokens = await client.clientCredentialsGrant(config, { scope: 'api:read' });
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(decodeJwt(tokens.access_token)).toMatchObject({
        sub: id,
        client_id: id,
        aud: `${server.url}/oauth2/resource`,
      });
      const res = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${server.url}/oauth2/resource`),
        'GET',
      );
      expect(res.status).toBe(200);
      const introspected = await client.tokenIntrospection(config, tokens.access_token);
      expect(introspected).toMatchObject({ active: true, client_id: id, scope: 'api:read' });
      await client.tokenRevocation(config, tokens.access_token);
      expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    }
  });

  it('DPoP-bound flow: token_type DPoP with cnf.jkt, resource needs the proof, the public refresh token is bound', async () => {
    const config = await discover(`${server.url}/oauth2`, 'public-app', client.None());
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const dpop = client.getDPoPHandle(config, keyPair);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri(),
      scope: 'api:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st',
    });
    const landed = await authorizeAsBrowser(url);
    const tokens = await client.authorizationCodeGrant(
      config,
      new URL(landed.location!),
      { pkceCodeVerifier: verifier, expectedState: 'st' },
      undefined,
      { DPoP: dpop },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    const claims = decodeJwt(tokens.access_token) as { cnf?: { jkt: string } };
    expect(claims.cnf?.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const ok = await client.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL(`${server.url}/oauth2/resource`),
      'GET',
      undefined,
      undefined,
      { DPoP: dpop },
    );
    expect(ok.status).toBe(200);
    // As a plain bearer token it is refused.
    const bearer = await fetch(`${server.url}/oauth2/resource`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(bearer.status).toBe(401);
    // The refresh token only works with a proof from the same key.
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toThrow();
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop });
    expect(refreshed.token_type.toLowerCase()).toBe('dpop');
  });
});
