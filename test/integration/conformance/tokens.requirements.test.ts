import { SignJWT, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { useRequirementKit } from '../../support/requirement-kit.ts';
import { form } from '../../support/main-server.ts';

// Requirements of RFC 7523, 7636, 7662 and 9068; each title starts with the registry id it proves.
const ctx = useRequirementKit();

const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const withAssertion = (assertion: string) =>
  ctx.k.post(
    '/oauth2/token',
    form({
      grant_type: 'client_credentials',
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      client_assertion: assertion,
    }),
  );
const userinfo = (token: string, scheme = 'Bearer') =>
  fetch(`${ctx.server.url}/oidc/userinfo`, { headers: { authorization: `${scheme} ${token}` } });

describe('RFC 7523', () => {
  it('[rfc7523-005] a client assertion is accepted when signed by a registered key for the token endpoint', async () => {
    const res = await withAssertion(await ctx.k.clientAssertion());
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token).client_id).toBe('pkjwt-app');
  });
  it('[rfc7523-006] a client assertion whose sub is not the client is refused', async () => {
    const res = await withAssertion(await ctx.k.clientAssertion({ sub: 'someone-else' }));
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
  });
  it('[rfc7523-007] a client assertion without exp is refused', async () => {
    const res = await withAssertion(await ctx.k.clientAssertion({}, { exp: null }));
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
  });
  it('[rfc7523-008] an expired client assertion is refused', async () => {
    const res = await withAssertion(await ctx.k.clientAssertion({}, { exp: ctx.k.now() - 600 }));
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
  });
  it('[rfc7523-009] a client assertion signed by a key the client did not register is refused', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const kid = ctx.k.pkjwtKey().kid!;
    const forged = await new SignJWT({ jti: 'forged-1' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer('pkjwt-app')
      .setSubject('pkjwt-app')
      .setAudience(`${ctx.server.url}/oauth2/token`)
      .setExpirationTime(ctx.k.now() + 60)
      .sign(privateKey);
    expect((await withAssertion(forged)).body.error).toBe('invalid_client');
  });
  it('[rfc7523-010] a client assertion is single use', async () => {
    const assertion = await ctx.k.clientAssertion();
    expect((await withAssertion(assertion)).status).toBe(200);
    expect((await withAssertion(assertion)).body.error).toBe('invalid_client');
  });
  it('[rfc7523-011] the issuer identifier is accepted as a client assertion audience', async () => {
    expect((await withAssertion(await ctx.k.clientAssertion({}, { aud: `${ctx.server.url}/oauth2` }))).status).toBe(
      200,
    );
  });
  it('[rfc7523-012] an assertion grant with a malformed JWT is invalid_grant', async () => {
    const res = await ctx.k.redeemAssertion('not-a-jwt');
    expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
  });
  it('[rfc7523-013] an assertion grant without an assertion is invalid_request', async () => {
    const res = await ctx.k.post(
      '/agentauth/token',
      form({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' }),
    );
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
  it('[rfc7523-014] an identity assertion issued for another audience is invalid_grant', async () => {
    const access = (await ctx.k.redeemAssertion((await ctx.k.register()).identity_assertion)).body.access_token;
    expect((await ctx.k.redeemAssertion(access)).body.error).toBe('invalid_grant');
  });
});

describe('RFC 7636', () => {
  it('[rfc7636-003] the plain challenge method is not accepted', async () => {
    const { verifier } = ctx.k.pkce();
    const res = await fetch(ctx.k.authorizeUrl({ code_challenge: verifier, code_challenge_method: 'plain' }), {
      redirect: 'manual',
    });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });
  it('[rfc7636-004] a code issued with a challenge needs the verifier', async () => {
    const { challenge } = ctx.k.pkce();
    const c = (await ctx.k.code({ code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get(
      'code',
    )!;
    expect((await ctx.k.redeem(c)).body.error).toBe('invalid_grant');
  });
  it('[rfc7636-005] the S256 verifier that matches the challenge redeems the code', async () => {
    const { challenge, verifier } = ctx.k.pkce();
    const c = (await ctx.k.code({ code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get(
      'code',
    )!;
    expect((await ctx.k.redeem(c, { code_verifier: verifier })).status).toBe(200);
  });
  it('[rfc7636-006] a verifier shorter than 43 characters is refused', async () => {
    const short = 'a'.repeat(42);
    const { createHash } = await import('node:crypto');
    const challenge = createHash('sha256').update(short).digest('base64url');
    const c = (await ctx.k.code({ code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get(
      'code',
    )!;
    expect((await ctx.k.redeem(c, { code_verifier: short })).body.error).toBe('invalid_grant');
  });
  it('[rfc7636-007] a malformed code_challenge is invalid_request', async () => {
    const res = await fetch(ctx.k.authorizeUrl({ code_challenge: 'too short', code_challenge_method: 'S256' }), {
      redirect: 'manual',
    });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });
  it('[rfc7636-008] a public client redeems with PKCE and no secret', async () => {
    const { challenge, verifier } = ctx.k.pkce();
    const c = (
      await ctx.k.code({ client_id: 'public-app', code_challenge: challenge, code_challenge_method: 'S256' })
    ).searchParams.get('code')!;
    const res = await ctx.k.redeem(c, { client_id: 'public-app', code_verifier: verifier }, {});
    expect(res.status).toBe(200);
  });
  it('[rfc7636-009] the metadata advertises S256', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server/oauth2']) {
      expect(((await (await fetch(ctx.server.url + path)).json()) as any).code_challenge_methods_supported).toEqual([
        'S256',
      ]);
    }
  });
});

describe('RFC 7662', () => {
  it('[rfc7662-003] an active token is described with active true and its claims', async () => {
    const token = (await ctx.k.clientCredentials()).body.access_token;
    const res = await ctx.k.post('/oauth2/introspect', form({ token }, ctx.k.basic('machine-client')));
    expect(res.body).toMatchObject({
      active: true,
      client_id: 'machine-client',
      token_type: 'Bearer',
      iss: `${ctx.server.url}/oauth2`,
    });
    expect(res.body.exp).toBe(decodeJwt(token).exp);
  });
  it('[rfc7662-004] an expired token is inactive', async () => {
    const token = (await ctx.k.clientCredentials()).body.access_token;
    ctx.server.clock.advance(2 * 3600_000);
    expect((await ctx.k.post('/oauth2/introspect', form({ token }, ctx.k.basic('machine-client')))).body).toEqual({
      active: false,
    });
  });
  it('[rfc7662-005] introspection without a token parameter is invalid_request', async () => {
    const res = await ctx.k.post('/oauth2/introspect', form({}, ctx.k.basic('machine-client')));
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
  it('[rfc7662-006] a wrong token_type_hint still finds the token', async () => {
    const token = (await ctx.k.clientCredentials()).body.access_token;
    expect(
      (
        await ctx.k.post(
          '/oauth2/introspect',
          form({ token, token_type_hint: 'refresh_token' }, ctx.k.basic('machine-client')),
        )
      ).body.active,
    ).toBe(true);
    const tokens = await ctx.k.tokensFor();
    expect(
      (
        await ctx.k.post(
          '/oidc/introspect',
          form({ token: tokens.refresh_token, token_type_hint: 'access_token' }, ctx.k.basic('demo-app')),
        )
      ).body,
    ).toMatchObject({ active: true, token_type: 'refresh_token' });
  });
  it('[rfc7662-007] a token of another issuer is inactive here', async () => {
    const token = (await ctx.k.clientCredentials()).body.access_token;
    expect((await ctx.k.post('/oidc/introspect', form({ token }, ctx.k.basic('demo-app')))).body).toEqual({
      active: false,
    });
  });
  it('[rfc7662-008] introspection responses are JSON and not cached', async () => {
    const res = await ctx.k.post('/oauth2/introspect', form({ token: 'x' }, ctx.k.basic('machine-client')));
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('RFC 9068', () => {
  it('[rfc9068-003] the aud of an access token names the resource it is for', async () => {
    expect(decodeJwt((await ctx.k.clientCredentials()).body.access_token).aud).toBe(
      `${ctx.server.url}/oauth2/resource`,
    );
    expect(decodeJwt((await ctx.k.tokensFor()).access_token).aud).toBe(`${ctx.server.url}/oidc/userinfo`);
  });
  it('[rfc9068-004] a JWT of the issuer that is not typed at+jwt is refused as an access token', async () => {
    const tokens = await ctx.k.tokensFor();
    expect(decodeProtectedHeader(tokens.id_token).typ).not.toBe('at+jwt');
    expect((await userinfo(tokens.id_token)).status).toBe(401);
  });
  it('[rfc9068-005] the granted scope is in the scope claim', async () => {
    expect(
      decodeJwt((await ctx.k.clientCredentials('machine-client', { scope: 'api:read' })).body.access_token).scope,
    ).toBe('api:read');
  });
  it('[rfc9068-006] an expired access token is refused by the resource', async () => {
    const tokens = await ctx.k.tokensFor();
    ctx.server.clock.advance(2 * 3600_000);
    expect((await userinfo(tokens.access_token)).status).toBe(401);
  });
  it('[rfc9068-007] a token for another audience is refused by the resource', async () => {
    expect((await userinfo((await ctx.k.clientCredentials()).body.access_token)).status).toBe(401);
  });
  it('[rfc9068-008] without a resource owner, sub is the client_id', async () => {
    const claims = decodeJwt((await ctx.k.clientCredentials()).body.access_token);
    expect(claims.sub).toBe('machine-client');
    expect(claims.client_id).toBe('machine-client');
  });
  it('[rfc9068-009] access tokens verify with a key of the issuer JWKS and are signed asymmetrically', async () => {
    const token = (await ctx.k.clientCredentials()).body.access_token;
    const meta = (await (await fetch(`${ctx.server.url}/.well-known/oauth-authorization-server/oauth2`)).json()) as any;
    const { protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(meta.jwks_uri)), {
      currentDate: new Date(ctx.server.clock.now()),
      typ: 'at+jwt',
    });
    expect(protectedHeader.alg).not.toMatch(/^HS|none/);
  });
  it('[rfc9068-010] a signature that does not verify is refused by the resource', async () => {
    const token = (await ctx.k.tokensFor()).access_token;
    const [h, p, s] = token.split('.');
    const tampered = `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect((await userinfo(tampered)).status).toBe(401);
  });
});
