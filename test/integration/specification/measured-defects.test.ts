import { SignJWT, generateKeyPair, exportJWK, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, EXTENSIONS_ON, type TestServer } from '../../support/main-server.ts';
import { isRegisteredRedirectUri } from '../../../services/oauth/redirect-uri.ts';

// Issue 45: defects measured from outside (parts A and C), each held by a test that failed before its fix.
let server: TestServer;
let pkjwt: { jwk: JWK; key: CryptoKey | Uint8Array };
beforeAll(async () => {
  server = await startMainServer({ env: EXTENSIONS_ON });
  const clients = (
    (await (await fetch(`${server.url}/oauth2/demo/clients`)).json()) as {
      clients: Array<{ client_id: string; private_jwks?: { keys: JWK[] } }>;
    }
  ).clients;
  const jwk = clients.find((c) => c.client_id === 'pkjwt-app')!.private_jwks!.keys.find((k) => k.alg === 'ES256')!;
  pkjwt = { jwk, key: await importJWK(jwk, 'ES256') };
});
afterAll(() => server.close());

const nowS = () => Math.floor(server.clock.now() / 1000);
const assertion = (aud: string, alg = 'ES256', key = pkjwt.key, kid = pkjwt.jwk.kid) =>
  new SignJWT({ jti: crypto.randomUUID() })
    .setProtectedHeader({ alg, kid })
    .setIssuer('pkjwt-app')
    .setSubject('pkjwt-app')
    .setAudience(aud)
    .setIssuedAt(nowS())
    .setExpirationTime(nowS() + 60)
    .sign(key);
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const pushed = (clientAssertion: string) =>
  exchange(
    server.url,
    '/oauth2/par',
    form({
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: clientAssertion,
      response_type: 'code',
      redirect_uri: `${server.url}/callback`,
      scope: 'api:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }),
  );

describe('client authentication (items 6 and 21)', () => {
  it('[item 21] PAR accepts an assertion whose aud is the PAR endpoint, the issuer or the token endpoint', async () => {
    for (const aud of [`${server.url}/oauth2/par`, `${server.url}/oauth2`, `${server.url}/oauth2/token`]) {
      const res = await pushed(await assertion(aud));
      expect(res.status, aud).toBe(201);
    }
    // The PAR URL is an audience at PAR only, not at the token endpoint.
    const atToken = await exchange(
      server.url,
      '/oauth2/token',
      form({
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(`${server.url}/oauth2/par`),
      }),
    );
    expect(atToken.body.error).toBe('invalid_client');
  });

  it('[item 6] exactly RS256, ES256 and EdDSA in metadata; an Ed25519-named assertion or DPoP proof is refused', async () => {
    for (const path of ['/.well-known/oauth-authorization-server/oauth2', '/.well-known/openid-configuration']) {
      const doc = (await (await fetch(`${server.url}${path}`)).json()) as Record<string, string[]>;
      expect([...doc.token_endpoint_auth_signing_alg_values_supported].sort(), path).toEqual([
        'ES256',
        'EdDSA',
        'RS256',
      ]);
      expect([...doc.dpop_signing_alg_values_supported].sort(), path).toEqual(['ES256', 'EdDSA', 'RS256']);
    }
    const { privateKey, publicKey } = await generateKeyPair('Ed25519');
    const jwk = await exportJWK(publicKey);
    const proof = await new SignJWT({ htm: 'POST', htu: `${server.url}/oauth2/token`, jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'Ed25519', typ: 'dpop+jwt', jwk })
      .setIssuedAt(nowS())
      .sign(privateKey);
    const res = await exchange(
      server.url,
      '/oauth2/token',
      form({ grant_type: 'client_credentials' }, { authorization: basicMachine(), dpop: proof }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_dpop_proof');
  });
});

const basicMachine = () => `Basic ${Buffer.from('machine-client:machine-client-secret').toString('base64')}`;

describe('redirect URIs and pairwise sectors (items 22 and 23)', () => {
  it('[item 23] a loopback IP redirect URI matches on any port (RFC 8252 §7.3); nothing else does', () => {
    const registered = ['http://127.0.0.1:8765/callback', 'http://[::1]/cb', 'https://app.example:8443/cb'];
    expect(isRegisteredRedirectUri(registered, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'http://[::1]:6000/cb')).toBe(true);
    expect(isRegisteredRedirectUri(registered, 'http://127.0.0.1:51234/other')).toBe(false);
    expect(isRegisteredRedirectUri(registered, 'https://127.0.0.1:51234/callback')).toBe(false);
    expect(isRegisteredRedirectUri(registered, 'https://app.example:9000/cb')).toBe(false);
    expect(isRegisteredRedirectUri(registered, 'http://localhost:51234/callback')).toBe(false);
  });

  it('[item 23] /authorize takes the demo client on a random loopback port', async () => {
    const res = await fetch(
      `${server.url}/oauth2/authorize?${new URLSearchParams({
        client_id: 'public-app',
        response_type: 'code',
        redirect_uri: 'http://127.0.0.1:51234/callback',
        scope: 'api:read',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 's',
      })}`,
      { redirect: 'manual' },
    );
    expect(res.status).toBeLessThan(400);
  });

  it('[item 22] a pairwise client on two loopback ports is one sector, so it registers', async () => {
    const res = await exchange(
      server.url,
      '/oauth2/register',
      json({
        redirect_uris: ['http://127.0.0.1:9999/cb', 'http://127.0.0.1:8765/cb'],
        subject_type: 'pairwise',
        token_endpoint_auth_method: 'none',
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe('Shared Signals verification without Retry-After (item 5)', () => {
  it('a second verification within min_verification_interval is 429 rate_limited, saying when, with no header', async () => {
    const token = await exchange(
      server.url,
      '/oauth2/token',
      form({ grant_type: 'client_credentials', scope: 'ssf' }, { authorization: basicMachine() }),
    );
    const bearer = { authorization: `Bearer ${token.body.access_token}` };
    const stream = await exchange(
      server.url,
      '/ssf/streams',
      json({ delivery: { method: 'urn:ietf:rfc:8936' } }, bearer),
    );
    const verify = () => fetch(`${server.url}/ssf/verify`, json({ stream_id: stream.body.stream_id }, bearer));
    expect((await verify()).status).toBe(204);
    const again = await verify();
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toBeNull();
    const body = (await again.json()) as { error: string; error_description: string };
    expect(body.error).toBe('rate_limited');
    expect(body.error_description).toMatch(/retry in \d+ s/);
  });
});

describe('PUT /mcp (item 9)', () => {
  it('the Allow header lists only the methods that are served', async () => {
    for (const method of ['PUT', 'GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow'), method).toBe('POST');
      expect(((await res.json()) as { error: string }).error).toBe('method_not_allowed');
    }
  });
});

describe('request_uri_method=post (item 24)', () => {
  it('a wallet without POST may GET the request object (no wallet_nonce); a get request refuses POST', async () => {
    const dcql = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };
    const created = await exchange(
      server.url,
      '/oid4vp/request/create',
      json({ dcql_query: dcql, client_id_prefix: 'x509_hash', request_uri_method: 'post' }),
    );
    expect(created.status).toBe(201);
    const requestUri = new URL(created.body.authorization_request_uri).searchParams.get('request_uri')!;
    const fetched = await fetch(requestUri);
    expect(fetched.status).toBe(200);
    const jwt = await fetched.text();
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    expect(payload).not.toHaveProperty('wallet_nonce');
    const plain = await exchange(
      server.url,
      '/oid4vp/request/create',
      json({ dcql_query: dcql, client_id_prefix: 'x509_hash' }),
    );
    const plainUri = new URL(plain.body.authorization_request_uri).searchParams.get('request_uri')!;
    const posted = await fetch(plainUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET');
  });
});

describe("the drafts' singular proof (item 25)", () => {
  it('is taken as a one-element proofs, recorded in the issuance stream, and noted in the answer', async () => {
    const offer = await exchange(
      server.url,
      '/oid4vci/offers',
      json({ credential_configuration_ids: ['UniversityDegreeCredential'] }),
    );
    const token = await exchange(
      server.url,
      '/oid4vci/token',
      form({
        grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
        'pre-authorized_code': offer.body.pre_authorized_code,
      }),
    );
    const nonce = (await exchange(server.url, '/oid4vci/nonce', { method: 'POST' })).body.c_nonce as string;
    const holder = await generateKeyPair('ES256');
    const proof = await new SignJWT({ nonce })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: await exportJWK(holder.publicKey) })
      .setAudience(`${server.url}/oid4vci`)
      .setIssuedAt(nowS())
      .sign(holder.privateKey);
    const bearer = { authorization: `Bearer ${token.body.access_token}` };
    const both = await exchange(
      server.url,
      '/oid4vci/credential',
      json(
        {
          credential_configuration_id: 'UniversityDegreeCredential',
          proof: { proof_type: 'jwt', jwt: proof },
          proofs: { jwt: [proof] },
        },
        bearer,
      ),
    );
    expect(both.body.error).toBe('invalid_credential_request');
    const issued = await exchange(
      server.url,
      '/oid4vci/credential',
      json(
        { credential_configuration_id: 'UniversityDegreeCredential', proof: { proof_type: 'jwt', jwt: proof } },
        bearer,
      ),
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.credentials).toHaveLength(1);
    expect(issued.body.notes).toEqual(['OpenID4VCI 1.0 §8.2 uses proofs; the draft proof was accepted']);
    const events = (
      await exchange(server.url, `/api/streams/issuance:${offer.body.offer_id}/export`, { method: 'GET' })
    ).body as { events: Array<{ type: string; data: Record<string, unknown> }> };
    expect(events.events.find((e) => e.type === 'issuance.credential_issued')?.data.draft_proof).toBe(true);
  });
});

describe('markdown negotiation on every page (item 8)', () => {
  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  it('/docs/api has a markdown twin; /auth.md answers HTML to a browser and markdown otherwise', async () => {
    const twin = await fetch(`${server.url}/docs/api`, { headers: { accept: 'text/markdown' } });
    expect(twin.headers.get('content-type')).toContain('text/markdown');
    const md = await twin.text();
    expect(md).toMatch(/^# /);
    expect(md).toContain('`POST /oid4vci/offers`');
    expect(
      (await fetch(`${server.url}/docs/api`, { headers: { accept: BROWSER } })).headers.get('content-type'),
    ).toContain('text/html');
    const page = await fetch(`${server.url}/auth.md`, { headers: { accept: BROWSER } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('vary')).toMatch(/Accept/i);
    expect(await page.text()).toMatch(/<h1[ >]/);
    for (const accept of [undefined, '*/*', 'text/markdown']) {
      const res = await fetch(`${server.url}/auth.md`, accept ? { headers: { accept } } : {});
      expect(res.headers.get('content-type'), String(accept)).toContain('text/markdown');
    }
  });
});
