import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair, importJWK, type JWK } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useRequirementKit } from '../../support/requirement-kit.ts';
import { form, json } from '../../support/main-server.ts';

// One focused test per registry requirement; the title starts with the requirement id.
const ctx = useRequirementKit();

const b64 = (b: Buffer) => b.toString('base64url');
const basic = (id: string) => ctx.k.basic(id);
const post = (path: string, init: RequestInit) => ctx.k.post(path, init);
const authorizeUrl = (params: Record<string, string>, prefix = '/oidc') => ctx.k.authorizeUrl(params, prefix);
const code = (params: Record<string, string> = {}) => ctx.k.code(params);
const redeem = (c: string, extra: Record<string, string> = {}) => ctx.k.redeem(c, extra);
const register = () => ctx.k.register();
const redeemAssertion = (assertion: string) => ctx.k.redeemAssertion(assertion);
const poll = (claimToken: string) => ctx.k.poll(claimToken);
const startClaim = (claimToken: string) => ctx.k.startClaim(claimToken);
const dpopProof = (keys: CryptoKeyPair, htm: string, htu: string) => ctx.k.dpopProof(keys, htm, htu);

describe('RFC 6749', () => {
  it('[rfc6749-001] unregistered redirect URI is refused and never redirected to', async () => {
    const res = await fetch(authorizeUrl({ redirect_uri: 'https://attacker.example/cb' }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
  it('[rfc6749-002] errors with an untrusted redirect URI are shown, not redirected', async () => {
    const res = await fetch(authorizeUrl({ redirect_uri: 'https://attacker.example/cb', response_type: 'token' }), {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
  it('[rfc6749-003] state is returned unchanged', async () => {
    const landed = await code({ state: 'a b&c=d' });
    expect(landed.searchParams.get('state')).toBe('a b&c=d');
  });
  it('[rfc6749-004] a code redeems once and its replay revokes what it produced', async () => {
    const c = (await code()).searchParams.get('code')!;
    const first = await redeem(c);
    expect(first.status).toBe(200);
    expect((await redeem(c)).body.error).toBe('invalid_grant');
    expect(
      (await post('/oidc/introspect', form({ token: first.body.access_token }, basic('demo-app')))).body.active,
    ).toBe(false);
  });
  it('[rfc6749-005] redirect_uri must match at the token endpoint', async () => {
    const c = (await code()).searchParams.get('code')!;
    expect((await redeem(c, { redirect_uri: 'http://127.0.0.1:8765/callback' })).body.error).toBe('invalid_grant');
  });
  it('[rfc6749-006] invalid_client after Basic is 401 with WWW-Authenticate', async () => {
    const res = await post(
      '/oauth2/token',
      form(
        { grant_type: 'client_credentials' },
        { authorization: `Basic ${Buffer.from('demo-app:wrong').toString('base64')}` },
      ),
    );
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });
  it('[rfc6749-007] token responses are not cached', async () => {
    const res = await post('/oauth2/token', form({ grant_type: 'client_credentials' }, basic('machine-client')));
    expect(res.headers.get('cache-control')).toBe('no-store');
    const agent = await redeemAssertion((await register()).identity_assertion);
    expect(agent.headers.get('cache-control')).toBe('no-store');
  });
  it('[rfc6749-008] a repeated parameter is refused', async () => {
    const res = await fetch(`${ctx.server.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...basic('machine-client') },
      body: 'grant_type=client_credentials&scope=api%3Aread&scope=api%3Awrite',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
  });
  it('[rfc6749-009] refresh tokens rotate and reuse revokes the family', async () => {
    const first = (await redeem((await code()).searchParams.get('code')!)).body;
    const second = (
      await post(
        '/oidc/token',
        form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, basic('demo-app')),
      )
    ).body;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(
      (
        await post(
          '/oidc/token',
          form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, basic('demo-app')),
        )
      ).body.error,
    ).toBe('invalid_grant');
    expect(
      (
        await post(
          '/oidc/token',
          form({ grant_type: 'refresh_token', refresh_token: second.refresh_token }, basic('demo-app')),
        )
      ).body.error,
    ).toBe('invalid_grant');
  });
});

describe('RFC 6750', () => {
  it('[rfc6750-001] UserInfo without a token answers 401 with a Bearer challenge', async () => {
    const res = await fetch(`${ctx.server.url}/oidc/userinfo`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });
  it('[rfc6750-002] a token in the header and the body at once is invalid_request', async () => {
    const t = (await redeem((await code()).searchParams.get('code')!)).body.access_token;
    const res = await post('/oidc/userinfo', form({ access_token: t }, { authorization: `Bearer ${t}` }));
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
});

describe('RFC 7009', () => {
  it('[rfc7009-001] revocation answers 200 for an unknown token', async () => {
    expect((await fetch(`${ctx.server.url}/agentauth/revoke`, form({ token: 'never-issued' }))).status).toBe(200);
    expect(
      (await fetch(`${ctx.server.url}/oauth2/revoke`, form({ token: 'never-issued' }, basic('demo-app')))).status,
    ).toBe(200);
  });
  it('[rfc7009-002] a revoked access token is inactive', async () => {
    const t = (await post('/oauth2/token', form({ grant_type: 'client_credentials' }, basic('machine-client')))).body
      .access_token;
    await fetch(`${ctx.server.url}/oauth2/revoke`, form({ token: t }, basic('machine-client')));
    expect((await post('/oauth2/introspect', form({ token: t }, basic('machine-client')))).body).toEqual({
      active: false,
    });
  });
});

describe('RFC 7523', () => {
  it('[rfc7523-001] a forged assertion is invalid_grant', async () => {
    const reg = await register();
    const { privateKey } = await generateKeyPair('ES256');
    const now = Math.floor(ctx.server.clock.now() / 1000);
    const forged = await new SignJWT({ jti: 'f' })
      .setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(reg.identity_assertion).kid, typ: 'JWT' })
      .setIssuer(`${ctx.server.url}/agentauth`)
      .setAudience(`${ctx.server.url}/agentauth`)
      .setSubject(reg.agent_id)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 60)
      .sign(privateKey);
    expect((await redeemAssertion(forged)).body.error).toBe('invalid_grant');
  });
  it('[rfc7523-002] an expired assertion is refused', async () => {
    const reg = await register();
    ctx.server.clock.advance(600_000);
    expect((await redeemAssertion(reg.identity_assertion)).body.error).toBe('invalid_grant');
  });
  it('[rfc7523-003] a replayed assertion is refused', async () => {
    const reg = await register();
    expect((await redeemAssertion(reg.identity_assertion)).status).toBe(200);
    expect((await redeemAssertion(reg.identity_assertion)).body.error).toBe('invalid_grant');
  });
  it('[rfc7523-004] a client assertion for another audience is refused', async () => {
    const jwk = ctx.k.clients['pkjwt-app'].private_jwks.keys.find((key: JWK) => key.alg === 'ES256');
    const assertion = await new SignJWT({ jti: b64(randomBytes(9)) })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
      .setIssuer('pkjwt-app')
      .setSubject('pkjwt-app')
      .setAudience('https://other.example/token')
      .setExpirationTime(Math.floor(ctx.server.clock.now() / 1000) + 60)
      .sign(await importJWK(jwk, 'ES256'));
    const res = await post(
      '/oauth2/token',
      form({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      }),
    );
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
  });
});

describe('RFC 7636', () => {
  const verifier = b64(randomBytes(32));
  const challenge = b64(createHash('sha256').update(verifier).digest());
  it('[rfc7636-001] a wrong code_verifier is invalid_grant', async () => {
    const c = (await code({ code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
    expect((await redeem(c, { code_verifier: b64(randomBytes(32)) })).body.error).toBe('invalid_grant');
  });
  it('[rfc7636-002] a public client without PKCE gets invalid_request', async () => {
    const res = await fetch(authorizeUrl({ client_id: 'public-app' }), { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('RFC 7662', () => {
  it('[rfc7662-001] introspection without client authentication is refused', async () => {
    expect((await post('/oauth2/introspect', form({ token: 'x' }))).status).toBe(401);
  });
  it('[rfc7662-002] an unknown token is {active:false}', async () => {
    expect((await post('/oauth2/introspect', form({ token: 'unknown' }, basic('demo-app')))).body).toEqual({
      active: false,
    });
  });
});

describe('RFC 8414', () => {
  it('[rfc8414-001] every metadata document names its own issuer', async () => {
    const cases: Array<[string, string]> = [
      ['/.well-known/oauth-authorization-server/oauth2', `${ctx.server.url}/oauth2`],
      ['/.well-known/oauth-authorization-server/agentauth', `${ctx.server.url}/agentauth`],
      ['/.well-known/oauth-authorization-server', ctx.server.url],
      ['/.well-known/openid-configuration', ctx.server.url],
    ];
    for (const [path, issuer] of cases)
      expect(((await (await fetch(ctx.server.url + path)).json()) as any).issuer).toBe(issuer);
  });
});

describe('RFC 8628 (agent claim)', () => {
  it('[rfc8628-001] an early poll is authorization_pending', async () => {
    const reg = await register();
    await startClaim(reg.claim_token);
    expect((await poll(reg.claim_token)).body.error).toBe('authorization_pending');
  });
  it('[rfc8628-002] a fast poll is slow_down', async () => {
    const reg = await register();
    await startClaim(reg.claim_token);
    await poll(reg.claim_token);
    ctx.server.clock.advance(1000);
    expect((await poll(reg.claim_token)).body.error).toBe('slow_down');
  });
  it('[rfc8628-003] a lapsed code is expired_token', async () => {
    const reg = await register();
    await startClaim(reg.claim_token);
    ctx.server.clock.advance(600_000);
    expect((await poll(reg.claim_token)).body.error).toBe('expired_token');
  });
  it('[rfc8628-004] a declined claim is access_denied', async () => {
    const reg = await register();
    const claim = await startClaim(reg.claim_token);
    await fetch(`${ctx.server.url}/agentauth/claim`, form({ user_code: claim.user_code, decision: 'decline' }));
    expect((await poll(reg.claim_token)).body.error).toBe('access_denied');
  });
});

describe('RFC 9068', () => {
  it('[rfc9068-001] access tokens are typed at+jwt', async () => {
    const t = (await post('/oauth2/token', form({ grant_type: 'client_credentials' }, basic('machine-client')))).body
      .access_token;
    expect(decodeProtectedHeader(t).typ).toBe('at+jwt');
  });
  it('[rfc9068-002] access tokens carry the required claims', async () => {
    const t = (await redeem((await code()).searchParams.get('code')!)).body.access_token;
    const claims = decodeJwt(t);
    for (const name of ['iss', 'exp', 'aud', 'sub', 'client_id', 'iat', 'jti'])
      expect(claims[name], name).toBeDefined();
  });
});

describe('RFC 9449', () => {
  it('[rfc9449-001] a proof for another URI is invalid_dpop_proof', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const res = await post(
      '/oauth2/token',
      form(
        { grant_type: 'client_credentials' },
        { ...basic('machine-client'), dpop: await dpopProof(keys, 'POST', `${ctx.server.url}/elsewhere`) },
      ),
    );
    expect([res.status, res.body.error]).toEqual([400, 'invalid_dpop_proof']);
  });
  it('[rfc9449-002] a valid proof yields token_type DPoP with cnf.jkt', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const res = await post(
      '/oauth2/token',
      form(
        { grant_type: 'client_credentials' },
        { ...basic('machine-client'), dpop: await dpopProof(keys, 'POST', `${ctx.server.url}/oauth2/token`) },
      ),
    );
    expect(res.body.token_type).toBe('DPoP');
    expect((decodeJwt(res.body.access_token) as any).cnf.jkt).toBeTruthy();
  });
  it('[rfc9449-003] a replayed proof is refused', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const proof = await dpopProof(keys, 'POST', `${ctx.server.url}/oauth2/token`);
    expect(
      (
        await post(
          '/oauth2/token',
          form({ grant_type: 'client_credentials' }, { ...basic('machine-client'), dpop: proof }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await post(
          '/oauth2/token',
          form({ grant_type: 'client_credentials' }, { ...basic('machine-client'), dpop: proof }),
        )
      ).body.error,
    ).toBe('invalid_dpop_proof');
  });
});

describe('RFC 9728', () => {
  it('[rfc9728-001] protected resource metadata names its own resource', async () => {
    expect(
      ((await (await fetch(`${ctx.server.url}/.well-known/oauth-protected-resource`)).json()) as any).resource,
    ).toBe(ctx.server.url);
    expect(
      ((await (await fetch(`${ctx.server.url}/.well-known/oauth-protected-resource/oidc/userinfo`)).json()) as any)
        .resource,
    ).toBe(`${ctx.server.url}/oidc/userinfo`);
  });
  it('[rfc9728-002] the UserInfo challenge points at its metadata', async () => {
    const res = await fetch(`${ctx.server.url}/oidc/userinfo`);
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="${ctx.server.url}/.well-known/oauth-protected-resource/oidc/userinfo"`,
    );
  });
});

describe('OpenID Connect Core', () => {
  it('[oidc-core-001] a request without openid is refused by the OP', async () => {
    const res = await fetch(authorizeUrl({ scope: 'profile' }), { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });
  it('[oidc-core-002] the ID token echoes the nonce', async () => {
    const tokens = (await redeem((await code({ nonce: 'n-0042' })).searchParams.get('code')!)).body;
    expect(decodeJwt(tokens.id_token).nonce).toBe('n-0042');
  });
  it('[oidc-core-003] UserInfo sub equals the ID token sub', async () => {
    const tokens = (await redeem((await code()).searchParams.get('code')!)).body;
    const info = (await (
      await fetch(`${ctx.server.url}/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    ).json()) as any;
    expect(info.sub).toBe(decodeJwt(tokens.id_token).sub);
  });
});
