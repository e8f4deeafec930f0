import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { useRequirementKit } from '../../support/requirement-kit.ts';
import { form } from '../../support/main-server.ts';

// Requirements of RFC 6749, 6750 and 7009; each title starts with the registry id it proves.
const ctx = useRequirementKit();

const redirectError = async (params: Record<string, string>, prefix = '/oidc') => {
  const res = await fetch(ctx.k.authorizeUrl(params, prefix), { redirect: 'manual' });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!).searchParams;
};

describe('RFC 6749', () => {
  it('[rfc6749-010] an unsupported response_type is answered unsupported_response_type', async () => {
    expect((await redirectError({ response_type: 'token' })).get('error')).toBe('unsupported_response_type');
  });
  it('[rfc6749-011] a missing response_type is an error sent to the client', async () => {
    const res = await fetch(ctx.k.authorizeUrl({}).replace('response_type=code&', ''), { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('unsupported_response_type');
  });
  it('[rfc6749-012] an unknown scope at the authorization endpoint is invalid_scope', async () => {
    expect((await redirectError({ scope: 'openid launch-missiles' })).get('error')).toBe('invalid_scope');
  });
  it('[rfc6749-013] error responses to the client carry the request state', async () => {
    const params = await redirectError({ response_type: 'token', state: 'keep me' });
    expect(params.get('state')).toBe('keep me');
  });
  it('[rfc6749-014] a person declining consent is access_denied at the redirect URI', async () => {
    const landed = await ctx.k.code({}, { decision: 'deny' });
    expect([
      landed.origin + landed.pathname,
      landed.searchParams.get('error'),
      landed.searchParams.get('state'),
    ]).toEqual([`${ctx.server.url}/callback`, 'access_denied', 'st-1']);
  });
  it('[rfc6749-015] an unknown client_id is shown to the person, not redirected', async () => {
    const res = await fetch(ctx.k.authorizeUrl({ client_id: 'nobody' }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
  it('[rfc6749-016] an authorization code is short-lived', async () => {
    const c = (await ctx.k.code()).searchParams.get('code')!;
    ctx.server.clock.advance(11 * 60_000);
    expect((await ctx.k.redeem(c)).body.error).toBe('invalid_grant');
  });
  it('[rfc6749-017] a code issued to one client cannot be redeemed by another', async () => {
    const c = (await ctx.k.code()).searchParams.get('code')!;
    const other = await ctx.k.redeem(
      c,
      { client_id: 'demo-app-post', client_secret: ctx.k.clients['demo-app-post'].client_secret },
      {},
    );
    expect(other.body.error).toBe('invalid_grant');
  });
  it('[rfc6749-018] a successful token response has access_token, token_type and expires_in as JSON', async () => {
    const res = await ctx.k.clientCredentials();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ token_type: 'Bearer' });
    expect(typeof res.body.access_token).toBe('string');
    expect(res.body.expires_in).toBeGreaterThan(0);
  });
  it('[rfc6749-019] an unknown grant_type is unsupported_grant_type', async () => {
    const res = await ctx.k.post(
      '/oauth2/token',
      form({ grant_type: 'urn:example:telepathy' }, ctx.k.basic('machine-client')),
    );
    expect([res.status, res.body.error]).toEqual([400, 'unsupported_grant_type']);
  });
  it('[rfc6749-020] a token request without grant_type is invalid_request', async () => {
    const res = await ctx.k.post('/oauth2/token', form({ scope: 'api:read' }, ctx.k.basic('machine-client')));
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
  it('[rfc6749-021] a client uses one authentication method per request', async () => {
    const res = await ctx.k.post(
      '/oauth2/token',
      form(
        {
          grant_type: 'client_credentials',
          client_id: 'machine-client',
          client_secret: ctx.k.clients['machine-client'].client_secret,
        },
        ctx.k.basic('machine-client'),
      ),
    );
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
  it('[rfc6749-022] the token endpoint accepts only POST', async () => {
    const res = await fetch(`${ctx.server.url}/oauth2/token?grant_type=client_credentials`, {
      headers: ctx.k.basic('machine-client'),
    });
    expect(res.status).toBe(405);
    expect(((await res.json()) as any).error).toBeTypeOf('string');
  });
  it('[rfc6749-023] client credentials responses carry no refresh token', async () => {
    const res = await ctx.k.clientCredentials();
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toBeUndefined();
  });
  it('[rfc6749-024] a refresh cannot widen the granted scope', async () => {
    const tokens = await ctx.k.tokensFor({ scope: 'openid offline_access' });
    const res = await ctx.k.post(
      '/oidc/token',
      form(
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'openid offline_access email' },
        ctx.k.basic('demo-app'),
      ),
    );
    expect(res.body.error).toBe('invalid_scope');
  });
  it('[rfc6749-025] a refresh token is bound to the client it was issued to', async () => {
    const tokens = await ctx.k.tokensFor();
    const res = await ctx.k.post(
      '/oidc/token',
      form({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: 'demo-app-post',
        client_secret: ctx.k.clients['demo-app-post'].client_secret,
      }),
    );
    expect(res.body.error).toBe('invalid_grant');
    expect(
      (
        await ctx.k.post(
          '/oidc/token',
          form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, ctx.k.basic('demo-app')),
        )
      ).status,
    ).toBe(200);
  });
  it('[rfc6749-026] a scope beyond what the client may have is invalid_scope', async () => {
    const res = await ctx.k.clientCredentials('machine-client', { scope: 'api:read admin:everything' });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_scope']);
  });
  it('[rfc6749-027] an unknown client without Basic is invalid_client with 401', async () => {
    const res = await ctx.k.post(
      '/oauth2/token',
      form({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' }),
    );
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
  });
  it('[rfc6749-028] a client may only use the grants it is registered for', async () => {
    const res = await ctx.k.post(
      '/oauth2/token',
      form({ grant_type: 'refresh_token', refresh_token: 'x.y' }, ctx.k.basic('machine-client')),
    );
    expect([res.status, res.body.error]).toEqual([400, 'unauthorized_client']);
  });
  it('[rfc6749-029] a token request needs the code of an authorization code grant', async () => {
    const res = await ctx.k.post(
      '/oidc/token',
      form({ grant_type: 'authorization_code', redirect_uri: `${ctx.server.url}/callback` }, ctx.k.basic('demo-app')),
    );
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
  it('[rfc6749-030] the scope of the issued token is returned', async () => {
    const res = await ctx.k.clientCredentials('machine-client', { scope: 'api:read' });
    expect(res.body.scope).toBe('api:read');
  });
  it('[rfc6749-031] client_secret_post authenticates with the secret in the body', async () => {
    const tokens = await ctx.k.code({ client_id: 'demo-app-post' });
    const res = await ctx.k.redeem(
      tokens.searchParams.get('code')!,
      { client_id: 'demo-app-post', client_secret: ctx.k.clients['demo-app-post'].client_secret },
      {},
    );
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token).client_id).toBe('demo-app-post');
  });
  it('[rfc6749-032] token errors are JSON with an error code and no cache', async () => {
    const res = await ctx.k.post(
      '/oauth2/token',
      form({ grant_type: 'password', username: 'a', password: 'b' }, ctx.k.basic('machine-client')),
    );
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('RFC 6750', () => {
  it('[rfc6750-003] an invalid access token is 401 invalid_token', async () => {
    const res = await fetch(`${ctx.server.url}/oidc/userinfo`, { headers: { authorization: 'Bearer not.a.token' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });
  it('[rfc6750-004] an access token in the query string is not accepted', async () => {
    const tokens = await ctx.k.tokensFor();
    const res = await fetch(`${ctx.server.url}/oidc/userinfo?access_token=${encodeURIComponent(tokens.access_token)}`);
    expect(res.status).toBe(401);
  });
  it('[rfc6750-005] an access token in a form-encoded POST body is accepted', async () => {
    const tokens = await ctx.k.tokensFor();
    const res = await ctx.k.post('/oidc/userinfo', form({ access_token: tokens.access_token }));
    expect(res.status).toBe(200);
    expect(res.body.sub).toBe(decodeJwt(tokens.id_token).sub);
  });
  it('[rfc6750-006] the Bearer scheme name is matched without regard to case', async () => {
    const tokens = await ctx.k.tokensFor();
    expect(
      (await fetch(`${ctx.server.url}/oidc/userinfo`, { headers: { authorization: `bearer ${tokens.access_token}` } }))
        .status,
    ).toBe(200);
  });
});

describe('RFC 7009', () => {
  it('[rfc7009-003] revocation requires the client to authenticate', async () => {
    const res = await ctx.k.post('/oauth2/revoke', form({ token: 'x' }));
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
  });
  it('[rfc7009-004] revoking a refresh token ends its grant', async () => {
    const tokens = await ctx.k.tokensFor();
    expect(
      (
        await ctx.k.post(
          '/oidc/revoke',
          form({ token: tokens.refresh_token, token_type_hint: 'refresh_token' }, ctx.k.basic('demo-app')),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await ctx.k.post(
          '/oidc/token',
          form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, ctx.k.basic('demo-app')),
        )
      ).body.error,
    ).toBe('invalid_grant');
  });
  it('[rfc7009-005] a wrong token_type_hint does not stop the revocation', async () => {
    const tokens = await ctx.k.tokensFor();
    await ctx.k.post(
      '/oidc/revoke',
      form({ token: tokens.refresh_token, token_type_hint: 'access_token' }, ctx.k.basic('demo-app')),
    );
    expect(
      (await ctx.k.post('/oidc/introspect', form({ token: tokens.refresh_token }, ctx.k.basic('demo-app')))).body,
    ).toEqual({ active: false });
  });
  it("[rfc7009-006] a client cannot revoke another client's token", async () => {
    const token = (await ctx.k.clientCredentials()).body.access_token;
    expect((await ctx.k.post('/oauth2/revoke', form({ token }, ctx.k.basic('demo-app')))).status).toBe(200);
    expect((await ctx.k.post('/oauth2/introspect', form({ token }, ctx.k.basic('machine-client')))).body.active).toBe(
      true,
    );
  });
  it('[rfc7009-007] revocation without a token parameter is invalid_request', async () => {
    const res = await ctx.k.post('/oauth2/revoke', form({}, ctx.k.basic('machine-client')));
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
  it('[rfc7009-008] revoking a refresh token also revokes the access tokens of its grant', async () => {
    const tokens = await ctx.k.tokensFor();
    await ctx.k.post('/oidc/revoke', form({ token: tokens.refresh_token }, ctx.k.basic('demo-app')));
    expect(
      (await ctx.k.post('/oidc/introspect', form({ token: tokens.access_token }, ctx.k.basic('demo-app')))).body,
    ).toEqual({ active: false });
  });
});
