import { SignJWT, calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
let clients: Record<string, any>;
beforeAll(async () => {
  server = await startMainServer();
  const list = ((await (await fetch(`${server.url}/oauth2/demo/clients`)).json()) as any).clients as any[];
  clients = Object.fromEntries(list.map((c) => [c.client_id, c]));
});
afterAll(async () => {
  await server.close();
});

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const demoBasic = () => basic('demo-app', clients['demo-app'].client_secret);
const b64url = (b: Buffer) => b.toString('base64url');
const pkce = () => {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) };
};
const post = async (path: string, init: RequestInit) => {
  const res = await fetch(server.url + path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
};

/** A code for demo-app (or `clientId`) through the real login and consent forms. */
async function code(
  options: { clientId?: string; pkce?: { challenge: string }; prefix?: string; scope?: string } = {},
) {
  const prefix = options.prefix ?? '/oidc';
  const url = new URL(`${server.url}${prefix}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId ?? 'demo-app',
    redirect_uri: `${server.url}/callback`,
    scope: options.scope ?? 'openid offline_access',
    state: 'xyz',
    nonce: 'n',
    ...(options.pkce ? { code_challenge: options.pkce.challenge, code_challenge_method: 'S256' } : {}),
  }).toString();
  const landed = await authorizeAsBrowser(url);
  const redirected = new URL(landed.location!);
  expect(redirected.searchParams.get('iss')).toBe(prefix === '/oidc' ? server.url : `${server.url}/oauth2`);
  expect(redirected.searchParams.get('state')).toBe('xyz');
  return redirected.searchParams.get('code')!;
}
const redeem = (
  c: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = { authorization: demoBasic() },
  prefix = '/oidc',
) =>
  post(
    `${prefix}/token`,
    form({ grant_type: 'authorization_code', code: c, redirect_uri: `${server.url}/callback`, ...extra }, headers),
  );

describe('authorization endpoint rules', () => {
  it('an unregistered redirect URI is shown on our page, never redirected to', async () => {
    const res = await fetch(
      `${server.url}/oidc/authorize?response_type=code&client_id=demo-app&redirect_uri=${encodeURIComponent('https://evil.example/cb')}&scope=openid`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('redirect_uri');
    const unknown = await fetch(`${server.url}/oidc/authorize?response_type=code&client_id=nobody&redirect_uri=x`, {
      redirect: 'manual',
    });
    expect(unknown.status).toBe(400);
  });

  it('errors go back to a trusted redirect URI with state and iss (RFC 6749 4.1.2.1, RFC 9207)', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'openid nonsense' }, 'invalid_scope'],
      [{ client_id: 'public-app' }, 'invalid_request'], // public client without PKCE
      [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'invalid_request'],
      [{ prompt: 'none' }, 'login_required'],
    ];
    for (const [override, error] of cases) {
      const params = new URLSearchParams({
        response_type: 'code',
        client_id: 'demo-app',
        redirect_uri: `${server.url}/callback`,
        scope: 'openid',
        state: 'st',
        ...override,
      });
      const res = await fetch(`${server.url}/oidc/authorize?${params}`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(`${server.url}/callback`);
      expect(Object.fromEntries(location.searchParams)).toMatchObject({ error, state: 'st', iss: server.url });
    }
  });

  it('a declined consent returns access_denied; a wrong password keeps the person on the login page', async () => {
    const url = `${server.url}/oidc/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: `${server.url}/callback`, scope: 'openid', state: 's' })}`;
    const denied = await authorizeAsBrowser(url, { decision: 'deny' });
    expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
    const wrong = await authorizeAsBrowser(url, { password: 'nope' });
    expect(wrong.status).toBe(400);
    expect(wrong.pages.at(-1)!.body).toMatch(/wrong password/i);
  });
});

describe('token endpoint rules', () => {
  it('a code redeems once; the replay is invalid_grant and revokes the tokens it produced', async () => {
    const c = await code();
    const first = await redeem(c);
    expect(first.status).toBe(200);
    const second = await redeem(c);
    expect([second.status, second.body.error]).toEqual([400, 'invalid_grant']);
    const introspect = await post(
      '/oidc/introspect',
      form({ token: first.body.access_token }, { authorization: demoBasic() }),
    );
    expect(introspect.body.active).toBe(false);
    const refresh = await post(
      '/oidc/token',
      form({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, { authorization: demoBasic() }),
    );
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('a code expires after 60 s and is bound to its client and redirect URI', async () => {
    const late = await code();
    server.clock.advance(60_000);
    expect((await redeem(late)).body.error).toBe('invalid_grant');
    const c = await code();
    expect((await redeem(c, { redirect_uri: 'http://127.0.0.1:8765/callback' })).body.error).toBe('invalid_grant');
    const other = await redeem(c, {}, { authorization: basic('demo-app-post', 'x') });
    expect(other.status).toBe(401);
  });

  it('PKCE: a wrong or missing verifier is invalid_grant', async () => {
    const p = pkce();
    const c1 = await code({ pkce: p });
    expect((await redeem(c1, { code_verifier: pkce().verifier })).body.error).toBe('invalid_grant');
    const c2 = await code({ pkce: p });
    expect((await redeem(c2)).body.error).toBe('invalid_grant');
    const c3 = await code({ pkce: p });
    expect((await redeem(c3, { code_verifier: p.verifier })).status).toBe(200);
  });

  it('a client may use only its registered method; Basic failures carry WWW-Authenticate', async () => {
    const post1 = await post(
      '/oauth2/token',
      form({
        grant_type: 'client_credentials',
        client_id: 'demo-app',
        client_secret: clients['demo-app'].client_secret,
      }),
    );
    expect([post1.status, post1.body.error]).toEqual([401, 'invalid_client']);
    const wrong = await post(
      '/oauth2/token',
      form({ grant_type: 'client_credentials' }, { authorization: basic('demo-app', 'wrong') }),
    );
    expect([wrong.status, wrong.body.error]).toEqual([401, 'invalid_client']);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    const two = await post(
      '/oauth2/token',
      form({ grant_type: 'client_credentials', client_secret: 'x' }, { authorization: demoBasic() }),
    );
    expect(two.body.error).toBe('invalid_request');
    const publicCc = await post('/oauth2/token', form({ grant_type: 'client_credentials', client_id: 'public-app' }));
    expect(publicCc.body.error).toBe('unauthorized_client');
    expect(
      (await post('/oauth2/token', form({ grant_type: 'password' }, { authorization: demoBasic() }))).body.error,
    ).toBe('unsupported_grant_type');
    expect(
      (
        await post(
          '/oauth2/token',
          form({ grant_type: 'client_credentials', scope: 'admin' }, { authorization: demoBasic() }),
        )
      ).body.error,
    ).toBe('invalid_scope');
  });

  it('private_key_jwt: wrong audience, expired and replayed assertions are invalid_client', async () => {
    const jwk = clients['pkjwt-app'].private_jwks.keys.find((k: JWK) => k.alg === 'ES256');
    const key = await importJWK(jwk, 'ES256');
    const now = Math.floor(server.clock.now() / 1000);
    const assertion = (claims: Record<string, unknown>) =>
      new SignJWT({ jti: b64url(randomBytes(12)), ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
        .setIssuer('pkjwt-app')
        .setSubject('pkjwt-app')
        .sign(key);
    const send = (a: string) =>
      post(
        '/oauth2/token',
        form({
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: a,
        }),
      );
    const good = await assertion({ aud: `${server.url}/oauth2/token`, exp: now + 60 });
    expect((await send(good)).status).toBe(200);
    expect((await send(good)).body.error).toBe('invalid_client');
    expect((await send(await assertion({ aud: 'https://elsewhere.example/token', exp: now + 60 }))).body.error).toBe(
      'invalid_client',
    );
    expect((await send(await assertion({ aud: `${server.url}/oauth2/token`, exp: now - 16 }))).body.error).toBe(
      'invalid_client',
    );
    const foreign = await generateKeyPair('ES256');
    const forged = await new SignJWT({ jti: 'f', aud: `${server.url}/oauth2/token`, exp: now + 60 })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('pkjwt-app')
      .setSubject('pkjwt-app')
      .sign(foreign.privateKey);
    expect((await send(forged)).status).toBe(401);
  });

  it('refresh tokens rotate; reusing a rotated one revokes the family and its access tokens', async () => {
    const first = (await redeem(await code())).body;
    const second = (
      await post(
        '/oidc/token',
        form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, { authorization: demoBasic() }),
      )
    ).body;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const reuse = await post(
      '/oidc/token',
      form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, { authorization: demoBasic() }),
    );
    expect(reuse.body.error).toBe('invalid_grant');
    const afterReuse = await post(
      '/oidc/token',
      form({ grant_type: 'refresh_token', refresh_token: second.refresh_token }, { authorization: demoBasic() }),
    );
    expect(afterReuse.body.error).toBe('invalid_grant');
    expect(
      (await post('/oidc/introspect', form({ token: second.access_token }, { authorization: demoBasic() }))).body
        .active,
    ).toBe(false);
  });
});

describe('DPoP at the token endpoint and the resource', () => {
  async function proof(keys: CryptoKeyPair, claims: Record<string, unknown>) {
    const jwk = await exportJWK(keys.publicKey);
    return new SignJWT({ jti: b64url(randomBytes(12)), iat: Math.floor(server.clock.now() / 1000), ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(keys.privateKey);
  }

  it('binds with cnf.jkt; refuses a replayed proof, a wrong htu or htm, and a stale iat', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const htu = `${server.url}/oauth2/token`;
    const good = await proof(keys, { htm: 'POST', htu });
    const bound = await post(
      '/oauth2/token',
      form({ grant_type: 'client_credentials', scope: 'api:read' }, { authorization: demoBasic(), dpop: good }),
    );
    expect(bound.body.token_type).toBe('DPoP');
    expect((decodeJwt(bound.body.access_token) as any).cnf.jkt).toBe(
      await calculateJwkThumbprint(await exportJWK(keys.publicKey)),
    );
    const replay = await post(
      '/oauth2/token',
      form({ grant_type: 'client_credentials' }, { authorization: demoBasic(), dpop: good }),
    );
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_dpop_proof']);
    for (const claims of [
      { htm: 'POST', htu: `${server.url}/oidc/token` },
      { htm: 'GET', htu },
      { htm: 'POST', htu, iat: Math.floor(server.clock.now() / 1000) - 120 },
    ]) {
      const res = await post(
        '/oauth2/token',
        form({ grant_type: 'client_credentials' }, { authorization: demoBasic(), dpop: await proof(keys, claims) }),
      );
      expect(res.body.error).toBe('invalid_dpop_proof');
    }
    // Without a DPoP header nothing changes.
    expect(
      (await post('/oauth2/token', form({ grant_type: 'client_credentials' }, { authorization: demoBasic() }))).body
        .token_type,
    ).toBe('Bearer');

    // At the resource: the proof must carry ath of this token.
    const token = bound.body.access_token as string;
    const ath = b64url(createHash('sha256').update(token).digest());
    const resource = `${server.url}/oauth2/resource`;
    const call = async (claims: Record<string, unknown>) =>
      fetch(resource, { headers: { authorization: `DPoP ${token}`, dpop: await proof(keys, claims) } });
    expect((await call({ htm: 'GET', htu: resource, ath })).status).toBe(200);
    const noAth = await call({ htm: 'GET', htu: resource });
    expect(noAth.status).toBe(401);
    expect(noAth.headers.get('www-authenticate')).toMatch(/^DPoP /);
  });
});

describe('UserInfo', () => {
  it('accepts the header or a form body, never the query; refuses agent tokens and double presentation', async () => {
    const tokens = (await redeem(await code({ scope: 'openid email' }))).body;
    const ok = await fetch(`${server.url}/oidc/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(await ok.json()).toEqual({ sub: 'alice', email: 'alice@example.com', email_verified: true });
    const body = await post('/oidc/userinfo', form({ access_token: tokens.access_token }));
    expect(body.body.sub).toBe('alice');

    const query = await fetch(`${server.url}/oidc/userinfo?access_token=${tokens.access_token}`);
    expect(query.status).toBe(401);
    expect(query.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="An access token is required in the Authorization header or the form body", resource_metadata="${server.url}/.well-known/oauth-protected-resource/oidc/userinfo"`,
    );
    const both = await post(
      '/oidc/userinfo',
      form({ access_token: tokens.access_token }, { authorization: `Bearer ${tokens.access_token}` }),
    );
    expect([both.status, both.body.error]).toEqual([400, 'invalid_request']);

    const agent = await (await fetch(`${server.url}/agentauth/identity`, json({ type: 'anonymous' }))).json();
    const agentToken = await post(
      '/agentauth/token',
      form({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: agent.identity_assertion }),
    );
    const refused = await fetch(`${server.url}/oidc/userinfo`, {
      headers: { authorization: `Bearer ${agentToken.body.access_token}` },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/,
    );
    const asToken = (
      await post('/oauth2/token', form({ grant_type: 'client_credentials' }, { authorization: demoBasic() }))
    ).body.access_token;
    expect(
      (await fetch(`${server.url}/oidc/userinfo`, { headers: { authorization: `Bearer ${asToken}` } })).status,
    ).toBe(401);
  });
});

describe('introspection and revocation need an authenticated client', () => {
  it('answers 401 invalid_client without credentials, and 200 on revocation of an unknown token', async () => {
    expect((await post('/oauth2/introspect', form({ token: 'x' }))).status).toBe(401);
    expect((await post('/oauth2/revoke', form({ token: 'x' }, { authorization: demoBasic() }))).status).toBe(200);
    expect((await post('/oauth2/introspect', form({ token: 'x' }, { authorization: demoBasic() }))).body).toEqual({
      active: false,
    });
  });
});

describe('fuzzed forms', () => {
  it('never produce a 5xx at the token, introspection and revocation endpoints', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(
        'authorization_code',
        'refresh_token',
        'client_credentials',
        'demo-app',
        'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        'a.b.c',
        'x.y',
      ),
    );
    const body = fc.dictionary(
      fc.constantFrom(
        'grant_type',
        'code',
        'redirect_uri',
        'code_verifier',
        'refresh_token',
        'scope',
        'client_id',
        'client_secret',
        'client_assertion_type',
        'client_assertion',
        'token',
      ),
      value,
      { maxKeys: 6 },
    );
    const auth = fc.option(
      fc.oneof(
        fc.constant(demoBasic()),
        fc.string({ maxLength: 20 }).map((s) => `Basic ${s}`),
        fc.string({ maxLength: 20 }),
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/oauth2/token', '/oidc/token', '/oauth2/introspect', '/oauth2/revoke'),
        body,
        auth,
        async (path, b, a) => {
          const res = await fetch(server.url + path, form(b, a ? { authorization: a } : {}));
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) {
            const parsed = await res.json();
            expect(typeof parsed.error).toBe('string');
          }
        },
      ),
      { numRuns: 200 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom(
            'response_type',
            'client_id',
            'redirect_uri',
            'scope',
            'state',
            'code_challenge',
            'response_mode',
            'prompt',
          ),
          fc.string({ maxLength: 20 }),
          { maxKeys: 8 },
        ),
        async (q) => {
          const res = await fetch(`${server.url}/oidc/authorize?${new URLSearchParams(q)}`, { redirect: 'manual' });
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('DPoP nonce mode', () => {
  it('with DPOP_NONCE_REQUIRED=true the token endpoint answers use_dpop_nonce with a DPoP-Nonce, then accepts a proof carrying it', async () => {
    const nonceServer = await startMainServer({ env: { DPOP_NONCE_REQUIRED: 'true' } });
    try {
      const keys = await generateKeyPair('ES256', { extractable: true });
      const jwk = await exportJWK(keys.publicKey);
      const htu = `${nonceServer.url}/oauth2/token`;
      const proof = (nonce?: string) =>
        new SignJWT({
          jti: b64url(randomBytes(12)),
          iat: Math.floor(nonceServer.clock.now() / 1000),
          htm: 'POST',
          htu,
          ...(nonce ? { nonce } : {}),
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
          .sign(keys.privateKey);
      const auth = { authorization: basic('machine-client', clients['machine-client'].client_secret) };
      const first = await fetch(htu, form({ grant_type: 'client_credentials' }, { ...auth, dpop: await proof() }));
      expect(first.status).toBe(400);
      expect((await first.json()).error).toBe('use_dpop_nonce');
      const nonce = first.headers.get('dpop-nonce')!;
      expect(nonce).toBeTruthy();
      const second = await fetch(
        htu,
        form({ grant_type: 'client_credentials' }, { ...auth, dpop: await proof(nonce) }),
      );
      expect(second.status).toBe(200);
      expect((await second.json()).token_type).toBe('DPoP');
    } finally {
      await nonceServer.close();
    }
  });
});

describe('RP-initiated logout', () => {
  it('redirects to a registered post_logout_redirect_uri with state, and refuses an unregistered one or a foreign hint', async () => {
    const tokens = (await redeem(await code())).body;
    const ok = await fetch(
      `${server.url}/oidc/logout?${new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: `${server.url}/`, state: 'bye' })}`,
      { redirect: 'manual' },
    );
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(`${server.url}/?state=bye`);
    const evil = await fetch(
      `${server.url}/oidc/logout?${new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: 'https://evil.example/' })}`,
      { redirect: 'manual' },
    );
    expect(evil.status).toBe(400);
    expect(evil.headers.get('location')).toBeNull();
    const foreign = await fetch(`${server.url}/oidc/logout?id_token_hint=${tokens.access_token}`, {
      redirect: 'manual',
    });
    expect(foreign.status).toBe(400);
    expect((await fetch(`${server.url}/oidc/logout`)).status).toBe(200);
  });
});
