import { SignJWT, createRemoteJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useRequirementKit } from '../../support/requirement-kit.ts';
import { EXTENSIONS_ON, form, json } from '../../support/main-server.ts';

// Requirements of RFC 7591, 7592, 8414, 8628, 8707, 9126 (at the OAuth server), 9449, 9728 and OpenID Connect
// Core; each title starts with its registry id.
// RFC 7591, 7592 and the protected MCP endpoint are extensions (decisions §11): this file turns them on.
const ctx = useRequirementKit(EXTENSIONS_ON);

const metadata = async (path: string) => (await (await fetch(ctx.server.url + path)).json()) as any;
const tokenUrl = () => `${ctx.server.url}/oauth2/token`;
const withProof = (proof: string) => ctx.k.clientCredentials('machine-client', {}, { dpop: proof });
const ath = (token: string) => createHash('sha256').update(token).digest('base64url');
const dpopKeys = () => generateKeyPair('ES256', { extractable: true });

describe('RFC 8414', () => {
  it('[rfc8414-002] the metadata has the required members', async () => {
    for (const path of ['/.well-known/oauth-authorization-server/oauth2', '/.well-known/openid-configuration']) {
      const m = await metadata(path);
      for (const member of [
        'issuer',
        'authorization_endpoint',
        'token_endpoint',
        'response_types_supported',
        'jwks_uri',
      ])
        expect(m[member], `${path} ${member}`).toBeDefined();
      expect(m.response_types_supported).toContain('code');
    }
  });
  it('[rfc8414-003] the metadata is a JSON object served with application/json', async () => {
    const res = await fetch(`${ctx.server.url}/.well-known/oauth-authorization-server/oauth2`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
  it('[rfc8414-004] private_key_jwt comes with its signing algorithms, and none is not one of them', async () => {
    const m = await metadata('/.well-known/oauth-authorization-server/oauth2');
    expect(m.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(m.token_endpoint_auth_signing_alg_values_supported.length).toBeGreaterThan(0);
    expect(m.token_endpoint_auth_signing_alg_values_supported).not.toContain('none');
  });
  it('[rfc8414-005] the advertised endpoints answer', async () => {
    const m = await metadata('/.well-known/oauth-authorization-server/oauth2');
    expect(
      (
        await ctx.k.post(
          new URL(m.introspection_endpoint).pathname,
          form({ token: 'x' }, ctx.k.basic('machine-client')),
        )
      ).status,
    ).toBe(200);
    expect(
      (await ctx.k.post(new URL(m.revocation_endpoint).pathname, form({ token: 'x' }, ctx.k.basic('machine-client'))))
        .status,
    ).toBe(200);
    expect(((await (await fetch(m.jwks_uri)).json()) as any).keys.length).toBeGreaterThan(0);
  });
  it('[rfc8414-006] every advertised grant type is served', async () => {
    const m = await metadata('/.well-known/oauth-authorization-server/oauth2');
    for (const grant of m.grant_types_supported as string[]) {
      const res = await ctx.k.post('/oauth2/token', form({ grant_type: grant }, ctx.k.basic('demo-app')));
      expect(res.body.error, grant).not.toBe('unsupported_grant_type');
    }
  });
  it('[rfc8414-007] the metadata URL of an issuer with a path inserts the well-known segment before the path', async () => {
    expect((await fetch(`${ctx.server.url}/oauth2/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await metadata('/.well-known/oauth-authorization-server/oauth2')).issuer).toBe(`${ctx.server.url}/oauth2`);
  });
});

describe('RFC 8628 (agent claim)', () => {
  it('[rfc8628-005] the claim start answers user_code, verification_uri, expires_in and interval', async () => {
    const claim = await ctx.k.startClaim((await ctx.k.register()).claim_token);
    expect(claim).toMatchObject({
      verification_uri: `${ctx.server.url}/agentauth/claim`,
      expires_in: 600,
      interval: 5,
    });
    expect(claim.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(new URL(claim.verification_uri_complete).searchParams.get('user_code')).toBe(claim.user_code);
  });
  it('[rfc8628-006] after approval the poll returns tokens once', async () => {
    const reg = await ctx.k.register();
    const claim = await ctx.k.startClaim(reg.claim_token);
    await fetch(`${ctx.server.url}/agentauth/claim`, form({ user_code: claim.user_code, decision: 'approve' }));
    const ok = await ctx.k.poll(reg.claim_token);
    expect(ok.status).toBe(200);
    expect(ok.body.access_token).toBeTypeOf('string');
    ctx.server.clock.advance(6_000);
    expect((await ctx.k.poll(reg.claim_token)).status).toBe(400);
  });
  it('[rfc8628-007] the user code uses a reduced alphabet without vowels', async () => {
    const codes = await Promise.all(
      Array.from(
        { length: 5 },
        async () => (await ctx.k.startClaim((await ctx.k.register()).claim_token)).user_code as string,
      ),
    );
    for (const c of codes) expect(c).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  });
  it('[rfc8628-008] the person may type the user code in lower case and with spaces', async () => {
    const reg = await ctx.k.register();
    const claim = await ctx.k.startClaim(reg.claim_token);
    const res = await fetch(
      `${ctx.server.url}/agentauth/claim`,
      form({ user_code: ` ${claim.user_code.toLowerCase().replace('-', ' ')} `, decision: 'approve' }),
    );
    expect(res.status).toBe(200);
    expect((await ctx.k.poll(reg.claim_token)).status).toBe(200);
  });
});

describe('RFC 9449', () => {
  it('[rfc9449-004] a proof not typed dpop+jwt is refused', async () => {
    const proof = await ctx.k.dpopProof(await dpopKeys(), 'POST', tokenUrl(), {}, { typ: 'JWT' });
    expect((await withProof(proof)).body.error).toBe('invalid_dpop_proof');
  });
  it('[rfc9449-005] a proof whose jwk header holds a private key is refused', async () => {
    const keys = await dpopKeys();
    const proof = await ctx.k.dpopProof(keys, 'POST', tokenUrl(), {}, { jwk: await exportJWK(keys.privateKey) });
    expect((await withProof(proof)).body.error).toBe('invalid_dpop_proof');
  });
  it('[rfc9449-006] a proof for another method is refused', async () => {
    expect((await withProof(await ctx.k.dpopProof(await dpopKeys(), 'GET', tokenUrl()))).body.error).toBe(
      'invalid_dpop_proof',
    );
  });
  it('[rfc9449-007] a proof issued too long ago is refused', async () => {
    expect(
      (await withProof(await ctx.k.dpopProof(await dpopKeys(), 'POST', tokenUrl(), { iat: ctx.k.now() - 3600 }))).body
        .error,
    ).toBe('invalid_dpop_proof');
  });
  it('[rfc9449-008] a proof not signed by the key in its header is refused', async () => {
    const keys = await dpopKeys();
    const other = await dpopKeys();
    const proof = await ctx.k.dpopProof(keys, 'POST', tokenUrl(), {}, { jwk: await exportJWK(other.publicKey) });
    expect((await withProof(proof)).body.error).toBe('invalid_dpop_proof');
  });
  it('[rfc9449-009] a symmetric or none alg is refused', async () => {
    const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
    const keys = await dpopKeys();
    const hs = await new SignJWT({ htm: 'POST', htu: tokenUrl(), jti: 'hs-proof-0001', iat: ctx.k.now() })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
      .sign(secret);
    expect((await withProof(hs)).body.error).toBe('invalid_dpop_proof');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })).toString('base64url')}.${Buffer.from(JSON.stringify({ htm: 'POST', htu: tokenUrl(), jti: 'none-proof-01', iat: ctx.k.now() })).toString('base64url')}.`;
    expect((await withProof(none)).body.error).toBe('invalid_dpop_proof');
  });
  it('[rfc9449-010] a DPoP-bound token is refused under the Bearer scheme', async () => {
    const keys = await dpopKeys();
    const { challenge, verifier } = ctx.k.pkce();
    const c = (
      await ctx.k.code({ client_id: 'public-app', code_challenge: challenge, code_challenge_method: 'S256' })
    ).searchParams.get('code')!;
    const tokens = (
      await ctx.k.redeem(
        c,
        { client_id: 'public-app', code_verifier: verifier },
        { dpop: await ctx.k.dpopProof(keys, 'POST', `${ctx.server.url}/oidc/token`) },
      )
    ).body;
    expect(tokens.token_type).toBe('DPoP');
    expect(
      (await fetch(`${ctx.server.url}/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } }))
        .status,
    ).toBe(401);
    const proof = await ctx.k.dpopProof(keys, 'GET', `${ctx.server.url}/oidc/userinfo`, {
      ath: ath(tokens.access_token),
    });
    expect(
      (
        await fetch(`${ctx.server.url}/oidc/userinfo`, {
          headers: { authorization: `DPoP ${tokens.access_token}`, dpop: proof },
        })
      ).status,
    ).toBe(200);
  });
  it('[rfc9449-011] at a resource the proof must carry the hash of the access token', async () => {
    const keys = await dpopKeys();
    const { challenge, verifier } = ctx.k.pkce();
    const c = (
      await ctx.k.code({ client_id: 'public-app', code_challenge: challenge, code_challenge_method: 'S256' })
    ).searchParams.get('code')!;
    const tokens = (
      await ctx.k.redeem(
        c,
        { client_id: 'public-app', code_verifier: verifier },
        { dpop: await ctx.k.dpopProof(keys, 'POST', `${ctx.server.url}/oidc/token`) },
      )
    ).body;
    const res = await fetch(`${ctx.server.url}/oidc/userinfo`, {
      headers: {
        authorization: `DPoP ${tokens.access_token}`,
        dpop: await ctx.k.dpopProof(keys, 'GET', `${ctx.server.url}/oidc/userinfo`, { ath: ath('another token') }),
      },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP /);
  });
  it('[rfc9449-012] a public client refresh token is bound to the DPoP key', async () => {
    const keys = await dpopKeys();
    const { challenge, verifier } = ctx.k.pkce();
    const c = (
      await ctx.k.code({ client_id: 'public-app', code_challenge: challenge, code_challenge_method: 'S256' })
    ).searchParams.get('code')!;
    const tokens = (
      await ctx.k.redeem(
        c,
        { client_id: 'public-app', code_verifier: verifier },
        { dpop: await ctx.k.dpopProof(keys, 'POST', `${ctx.server.url}/oidc/token`) },
      )
    ).body;
    const refresh = (headers: Record<string, string>) =>
      ctx.k.post(
        '/oidc/token',
        form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'public-app' }, headers),
      );
    expect(
      (await refresh({ dpop: await ctx.k.dpopProof(await dpopKeys(), 'POST', `${ctx.server.url}/oidc/token`) })).body
        .error,
    ).toBe('invalid_grant');
    expect((await refresh({ dpop: await ctx.k.dpopProof(keys, 'POST', `${ctx.server.url}/oidc/token`) })).status).toBe(
      200,
    );
  });
  it('[rfc9449-013] the metadata advertises the DPoP signing algorithms', async () => {
    expect(
      (await metadata('/.well-known/oauth-authorization-server/oauth2')).dpop_signing_alg_values_supported,
    ).toEqual(expect.arrayContaining(['ES256']));
  });
  it('[rfc9449-014] the jkt in the token is the RFC 7638 thumbprint of the proof key', async () => {
    const keys = await dpopKeys();
    const res = await withProof(await ctx.k.dpopProof(keys, 'POST', tokenUrl()));
    const { calculateJwkThumbprint } = await import('jose');
    expect((decodeJwt(res.body.access_token) as any).cnf.jkt).toBe(
      await calculateJwkThumbprint(await exportJWK(keys.publicKey)),
    );
  });
  it('[rfc9449-015] htu is compared without query and fragment', async () => {
    expect((await withProof(await ctx.k.dpopProof(await dpopKeys(), 'POST', `${tokenUrl()}?x=1#frag`))).status).toBe(
      200,
    );
  });
});

describe('RFC 9728', () => {
  it('[rfc9728-003] the protected resource metadata lists its authorization servers', async () => {
    const m = await metadata('/.well-known/oauth-protected-resource/oauth2/resource');
    expect(m.resource).toBe(`${ctx.server.url}/oauth2/resource`);
    expect(m.authorization_servers).toContain(`${ctx.server.url}/oauth2`);
  });
  it('[rfc9728-004] every listed authorization server publishes metadata naming itself', async () => {
    const m = await metadata('/.well-known/oauth-protected-resource');
    for (const issuer of m.authorization_servers as string[]) {
      const u = new URL(issuer);
      const doc = await metadata(`/.well-known/oauth-authorization-server${u.pathname === '/' ? '' : u.pathname}`);
      expect(doc.issuer).toBe(issuer);
    }
  });
  it('[rfc9728-005] the metadata is JSON served with application/json', async () => {
    const res = await fetch(`${ctx.server.url}/.well-known/oauth-protected-resource/oidc/userinfo`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('RFC 9207', () => {
  it('[rfc9207-001] the authorization response carries the issuer in iss', async () => {
    expect((await ctx.k.code()).searchParams.get('iss')).toBe(ctx.server.url);
    expect((await ctx.k.code({ scope: 'api:read' }, { prefix: '/oauth2' })).searchParams.get('iss')).toBe(
      `${ctx.server.url}/oauth2`,
    );
  });
  it('[rfc9207-002] error responses to the client carry the issuer too', async () => {
    const res = await fetch(ctx.k.authorizeUrl({ response_type: 'token' }), { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('iss')).toBe(ctx.server.url);
  });
  it('[rfc9207-003] the metadata says that iss is returned', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server/oauth2']) {
      expect((await metadata(path)).authorization_response_iss_parameter_supported).toBe(true);
    }
  });
});

describe('OpenID Connect Core', () => {
  it('[oidc-core-004] the ID token names the issuer and the client as audience', async () => {
    const claims = decodeJwt((await ctx.k.tokensFor()).id_token);
    expect(claims.iss).toBe(ctx.server.url);
    expect(claims.aud === 'demo-app' || (Array.isArray(claims.aud) && claims.aud.includes('demo-app'))).toBe(true);
  });
  it('[oidc-core-005] the ID token carries iss, sub, aud, exp and iat', async () => {
    const claims = decodeJwt((await ctx.k.tokensFor()).id_token);
    for (const name of ['iss', 'sub', 'aud', 'exp', 'iat']) expect(claims[name], name).toBeDefined();
    expect(claims.exp!).toBeGreaterThan(claims.iat!);
  });
  it('[oidc-core-006] at_hash is the left half of the SHA-256 of the access token', async () => {
    const tokens = await ctx.k.tokensFor();
    const half = createHash('sha256').update(tokens.access_token).digest().subarray(0, 16).toString('base64url');
    expect(decodeJwt(tokens.id_token).at_hash).toBe(half);
  });
  it('[oidc-core-007] the ID token verifies with the published keys and an advertised algorithm', async () => {
    const tokens = await ctx.k.tokensFor();
    const m = await metadata('/.well-known/openid-configuration');
    const { protectedHeader } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(m.jwks_uri)), {
      issuer: ctx.server.url,
      audience: 'demo-app',
      currentDate: new Date(ctx.server.clock.now()),
    });
    expect(m.id_token_signing_alg_values_supported).toContain(protectedHeader.alg);
  });
  it('[oidc-core-008] an authentication request without redirect_uri is shown as an error, not redirected', async () => {
    const url = new URL(ctx.k.authorizeUrl({}));
    url.searchParams.delete('redirect_uri');
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
  it('[oidc-core-009] prompt=none without a session is login_required', async () => {
    const res = await fetch(ctx.k.authorizeUrl({ prompt: 'none' }), { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });
  it('[oidc-core-010] the ID token carries auth_time', async () => {
    const claims = decodeJwt((await ctx.k.tokensFor({ max_age: '60' })).id_token);
    expect(claims.auth_time).toBeTypeOf('number');
    expect(Math.abs((claims.auth_time as number) - ctx.k.now())).toBeLessThan(5);
  });
  it('[oidc-core-011] UserInfo returns the claims of the granted scopes only', async () => {
    const withEmail = await ctx.k.tokensFor({ scope: 'openid email' });
    const info = (await (
      await fetch(`${ctx.server.url}/oidc/userinfo`, { headers: { authorization: `Bearer ${withEmail.access_token}` } })
    ).json()) as any;
    expect(info.email).toBeTypeOf('string');
    expect(info.name).toBeUndefined();
    const bare = await ctx.k.tokensFor({ scope: 'openid' });
    const plain = (await (
      await fetch(`${ctx.server.url}/oidc/userinfo`, { headers: { authorization: `Bearer ${bare.access_token}` } })
    ).json()) as any;
    expect(Object.keys(plain)).toEqual(['sub']);
  });
  it('[oidc-core-012] sub is stable for one person across sign-ins and differs between people', async () => {
    const a1 = decodeJwt((await ctx.k.tokensFor()).id_token).sub;
    const a2 = decodeJwt((await ctx.k.tokensFor()).id_token).sub;
    const bob = decodeJwt(
      (await ctx.k.redeem((await ctx.k.code({}, { username: 'bob' })).searchParams.get('code')!)).body.id_token,
    ).sub;
    expect(a1).toBe(a2);
    expect(bob).not.toBe(a1);
  });
  it('[oidc-core-013] request objects are refused with request_not_supported', async () => {
    const res = await fetch(ctx.k.authorizeUrl({ request: 'eyJhbGciOiJub25lIn0.e30.' }), { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('request_not_supported');
  });
  it('[oidc-core-014] a refreshed ID token keeps iss and sub', async () => {
    const first = await ctx.k.tokensFor();
    const refreshed = (
      await ctx.k.post(
        '/oidc/token',
        form({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, ctx.k.basic('demo-app')),
      )
    ).body;
    const [a, b] = [decodeJwt(first.id_token), decodeJwt(refreshed.id_token)];
    expect([b.iss, b.sub]).toEqual([a.iss, a.sub]);
  });
  it('[oidc-core-016] response_mode=form_post returns the code in an auto-submitting form', async () => {
    const { authorizeAsBrowser } = await import('../../support/browser-like.ts');
    const landed = await authorizeAsBrowser(ctx.k.authorizeUrl({ response_mode: 'form_post' }));
    expect(landed.formPost?.action).toBe(`${ctx.server.url}/callback`);
    expect(landed.formPost?.fields.code).toBeTypeOf('string');
    expect(landed.formPost?.fields.state).toBe('st-1');
  });
  it('[oidc-core-017] UserInfo is served as JSON for a valid token', async () => {
    const tokens = await ctx.k.tokensFor({ scope: 'openid profile' });
    const res = await fetch(`${ctx.server.url}/oidc/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await res.json()) as any).name).toBeTypeOf('string');
  });
});

const url = (path: string) => `${ctx.server.url}${path}`;
const register = async (metadata: unknown) => {
  const res = await fetch(url('/oauth2/register'), json(metadata));
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const machineToken = async (resource: string) => {
  const res = await fetch(
    url('/oauth2/token'),
    form({ grant_type: 'client_credentials', resource }, ctx.k.basic('machine-client')),
  );
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('RFC 7591', () => {
  it('[rfc7591-001] a registration is answered 201 with client_id and the metadata registered', async () => {
    const res = await register({ redirect_uris: ['https://app.example/cb'], client_name: 'Conformance' });
    expect(res.status).toBe(201);
    expect(res.body.client_id).toBeTypeOf('string');
    expect(res.body).toMatchObject({ client_name: 'Conformance', redirect_uris: ['https://app.example/cb'] });
  });
  it('[rfc7591-002] an invalid redirect URI is refused with invalid_redirect_uri', async () => {
    const res = await register({ redirect_uris: ['https://app.example/cb#fragment'] });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_redirect_uri']);
  });
  it('[rfc7591-003] inconsistent metadata is refused with invalid_client_metadata', async () => {
    const res = await register({
      redirect_uris: ['https://app.example/cb'],
      response_types: ['code'],
      grant_types: ['client_credentials'],
    });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_client_metadata']);
  });
});

describe('RFC 7592', () => {
  it('[rfc7592-001] the client configuration endpoint refuses a wrong registration access token with 401', async () => {
    const { body } = await register({ redirect_uris: ['https://app.example/cb'] });
    const res = await fetch(body.registration_client_uri, { headers: { authorization: 'Bearer not-the-token' } });
    expect(res.status).toBe(401);
  });
  it('[rfc7592-002] a deleted client can no longer get tokens', async () => {
    const { body } = await register({ grant_types: ['client_credentials'], scope: 'api:read' });
    const basic = `Basic ${Buffer.from(`${body.client_id}:${body.client_secret}`).toString('base64')}`;
    const token = () =>
      fetch(url('/oauth2/token'), form({ grant_type: 'client_credentials' }, { authorization: basic }));
    const issued = await token();
    expect(issued.status).toBe(200);
    const { access_token: accessToken } = (await issued.json()) as { access_token: string };
    const resource = () => fetch(url('/oauth2/resource'), { headers: { authorization: `Bearer ${accessToken}` } });
    expect((await resource()).status).toBe(200);
    const deleted = await fetch(body.registration_client_uri, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${body.registration_access_token}` },
    });
    expect(deleted.status).toBe(204);
    expect((await token()).status).toBe(401);
    // Issue 45 item 37 (RFC 7592 §2.3): the access tokens it already holds stop working at once.
    const refused = await resource();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});

describe('RFC 8707', () => {
  it('[rfc8707-001] the access token is audience-restricted to the resource requested', async () => {
    const res = await machineToken(url('/mcp/user'));
    expect(decodeJwt(res.body.access_token).aud).toBe(url('/mcp/user'));
  });
  it('[rfc8707-002] an unknown or malformed resource is invalid_target', async () => {
    for (const resource of ['https://unknown.example/api', 'relative/path', `${url('/mcp/user')}#f`]) {
      const res = await machineToken(resource);
      expect([res.status, res.body.error], resource).toEqual([400, 'invalid_target']);
    }
  });
});

describe('RFC 9126 at the OAuth server', () => {
  it('[rfc9126-005] a client registered to require PAR is refused a plain authorization request', async () => {
    const { body } = await register({
      redirect_uris: [url('/callback')],
      token_endpoint_auth_method: 'none',
      require_pushed_authorization_requests: true,
    });
    const plain = await fetch(
      `${url('/oauth2/authorize')}?${new URLSearchParams({ client_id: body.client_id, redirect_uri: url('/callback'), response_type: 'code', scope: 'mcp:read', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
      { redirect: 'manual' },
    );
    // A self-registered client's error is shown on our page with the way back (RFC 9700 §4.11.2), never redirected.
    expect([plain.status, plain.headers.get('location')]).toEqual([400, null]);
    const back = /<a href="([^"]+)" rel="noreferrer">Return to /
      .exec(await plain.text())?.[1]
      ?.replaceAll('&amp;', '&');
    expect(new URL(back!).searchParams.get('error')).toBe('invalid_request');
    const pushed = await fetch(
      url('/oauth2/par'),
      form({
        client_id: body.client_id,
        redirect_uri: url('/callback'),
        response_type: 'code',
        scope: 'mcp:read',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }),
    );
    const { request_uri } = (await pushed.json()) as { request_uri: string };
    const landed = await authorizeAsBrowser(
      `${url('/oauth2/authorize')}?${new URLSearchParams({ client_id: body.client_id, request_uri })}`,
    );
    expect(new URL(landed.location!).searchParams.get('code')).toBeTruthy();
  });
});

describe('RFC 9728 at the MCP endpoint', () => {
  it('[rfc9728-006] the protected MCP endpoint answers 401 naming its metadata, which names its resource', async () => {
    const res = await fetch(url('/mcp/user'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
    expect(metadataUrl).toBe(url('/.well-known/oauth-protected-resource/mcp/user'));
    const metadata = (await (await fetch(metadataUrl!)).json()) as { resource: string };
    expect(metadata.resource).toBe(url('/mcp/user'));
  });
});
