import * as client from 'openid-client';
import { createServer, type Server } from 'node:http';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { startMainServer, EXTENSIONS_ON, type TestServer } from '../../support/main-server.ts';

/** openid-client v6, unmodified, registers itself (RFC 7591), manages its registration (RFC 7592) and runs code + PKCE + resource. */
let server: TestServer;
let documents: Server;
let documentsUrl: string;
const served = new Map<string, { status: number; body: string; headers?: Record<string, string> }>();
const hits = new Map<string, number>();

beforeAll(async () => {
  // The guard's test hook lets the client metadata documents live on this loopback server.
  server = await startMainServer({ env: { ...EXTENSIONS_ON, OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  documents = createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    const doc = served.get(req.url ?? '');
    res.writeHead(doc?.status ?? 404, { 'content-type': 'application/json', ...doc?.headers });
    res.end(doc?.body ?? '{}');
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  documentsUrl = `http://127.0.0.1:${(documents.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => documents.close(resolve));
  await server.close();
});

const insecure = { execute: [client.allowInsecureRequests] };
const realTime = () => server.clock.set(Date.now());
const mcpResource = () => `${server.url}/mcp/user`;

async function register(issuer: string, metadata: Partial<client.ClientMetadata>, auth?: client.ClientAuth) {
  realTime();
  return client.dynamicClientRegistration(new URL(issuer), metadata, auth, {
    ...insecure,
    algorithm: issuer.endsWith('/oauth2') ? 'oauth2' : 'oidc',
  });
}

async function codeFlow(
  config: client.Configuration,
  scope: string,
  extra: { resource?: string; par?: boolean; redirectUri?: string } = {},
) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const params = {
    redirect_uri: extra.redirectUri ?? `${server.url}/callback`,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...(extra.resource ? { resource: extra.resource } : {}),
  };
  const url = extra.par
    ? await client.buildAuthorizationUrlWithPAR(config, params)
    : client.buildAuthorizationUrl(config, params);
  const landed = await authorizeAsBrowser(url);
  expect(landed.location, landed.pages.at(-1)?.body.slice(0, 300)).toBeDefined();
  return client.authorizationCodeGrant(
    config,
    new URL(landed.location!),
    {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: scope.includes('openid') && !config.serverMetadata().issuer.endsWith('/oauth2'),
    },
    extra.resource ? { resource: extra.resource } : undefined,
  );
}

async function introspect(token: string) {
  const response = await fetch(`${server.url}/oauth2/introspect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('demo-app:demo-app-secret').toString('base64')}`,
    },
    body: new URLSearchParams({ token }),
  });
  return (await response.json()) as { active: boolean; aud?: string };
}

/**
 * A self-registered client's authorization error (issue 45 item 39, RFC 9700 §4.11.2): never an automatic
 * redirect; our page shows it with the way back, which the person follows.
 */
async function errorReturn(authorizationUrl: URL | string): Promise<URL> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  expect([res.status, res.headers.get('location')]).toEqual([400, null]);
  const href = /<a href="([^"]+)" rel="noreferrer">Return to /.exec(await res.text())?.[1];
  expect(href).toBeDefined();
  return new URL(href!.replaceAll('&amp;', '&'));
}

describe('openid-client registers by DCR and manages the client by RFC 7592', () => {
  it('registers at the OAuth AS, runs code + PKCE + resource, reads and updates the registration, then deletes it', async () => {
    const config = await register(`${server.url}/oauth2`, {
      client_name: 'openid-client via DCR',
      redirect_uris: [`${server.url}/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // openid-client authenticates a registered client with client_secret_post unless told otherwise.
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'mcp:read mcp:write offline_access',
    });
    const registered = config.clientMetadata() as Record<string, any>;
    expect(registered.client_id).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(registered.client_secret).toBeTypeOf('string');
    expect(registered.registration_access_token).toBeTypeOf('string');
    expect(registered.registration_client_uri).toBe(`${server.url}/oauth2/register/${registered.client_id}`);
    expect(registered.client_id_issued_at).toBeTypeOf('number');

    const tokens = await codeFlow(config, 'mcp:read', { resource: mcpResource() });
    // RFC 8707: the token is audience-bound to the resource named.
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: mcpResource(), client_id: registered.client_id });
    expect(tokens.refresh_token).toBeTypeOf('string');

    // RFC 7592 §2.1, through openid-client's protected-resource call: the answer carries a new token.
    const uri = new URL(registered.registration_client_uri);
    const read = await client.fetchProtectedResource(config, registered.registration_access_token, uri, 'GET');
    expect(read.status).toBe(200);
    const information = (await read.json()) as Record<string, any>;
    expect(information).toMatchObject({ client_id: registered.client_id, client_name: 'openid-client via DCR' });
    expect(information.client_secret).toBeUndefined(); // only its hash is kept
    expect(information.registration_access_token).not.toBe(registered.registration_access_token);
    // A 401 with its challenge: openid-client raises it as the challenge it parsed.
    await expect(
      client.fetchProtectedResource(config, registered.registration_access_token, uri, 'GET'),
    ).rejects.toMatchObject({ status: 401, cause: [{ scheme: 'bearer', parameters: { error: 'invalid_token' } }] });

    // RFC 7592 §2.2: the update replaces the metadata.
    const update = await client.fetchProtectedResource(
      config,
      information.registration_access_token,
      uri,
      'PUT',
      JSON.stringify({
        client_id: registered.client_id,
        client_name: 'renamed by PUT',
        redirect_uris: [`${server.url}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'mcp:read offline_access',
      }),
      new Headers({ 'content-type': 'application/json' }),
    );
    expect(update.status).toBe(200);
    const updated = (await update.json()) as Record<string, any>;
    expect(updated).toMatchObject({ client_name: 'renamed by PUT', scope: 'mcp:read offline_access' });

    // RFC 7592 §2.3: deleted, it gets no tokens, and its refresh family is revoked with its access tokens.
    const removed = await client.fetchProtectedResource(config, updated.registration_access_token, uri, 'DELETE');
    expect(removed.status).toBe(204);
    expect((await introspect(tokens.refresh_token!)).active).toBe(false);
    expect((await introspect(tokens.access_token)).active).toBe(false);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_client',
    });
    await expect(
      client.fetchProtectedResource(config, updated.registration_access_token, uri, 'GET'),
    ).rejects.toMatchObject({ status: 401 });
  });

  it('a client that requires PAR pushes at the OpenID Provider; a plain authorization request is refused', async () => {
    const config = await register(
      server.url,
      {
        redirect_uris: [`${server.url}/callback`],
        token_endpoint_auth_method: 'client_secret_post',
        require_pushed_authorization_requests: true,
        scope: 'openid profile',
      },
      undefined,
    );
    const tokens = await codeFlow(config, 'openid profile', { par: true });
    expect(tokens.claims()?.sub).toBe('alice');
    const plain = client.buildAuthorizationUrl(config, {
      redirect_uri: `${server.url}/callback`,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const location = await errorReturn(plain);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/push/);
  });

  it('a public client registered with none runs PKCE at the OAuth AS with the MCP resource, and gets invalid_target for an unknown one', async () => {
    const config = await register(
      `${server.url}/oauth2`,
      { redirect_uris: [`${server.url}/callback`], token_endpoint_auth_method: 'none', scope: 'mcp:read' },
      client.None(),
    );
    const tokens = await codeFlow(config, 'mcp:read', { resource: mcpResource() });
    expect(decodeJwt(tokens.access_token).aud).toBe(mcpResource());
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: `${server.url}/callback`,
      scope: 'mcp:read',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      resource: 'https://elsewhere.example/api',
    });
    const refused = await errorReturn(url);
    expect(refused.searchParams.get('error')).toBe('invalid_target');
  });
});

describe('openid-client with a Client ID Metadata Document on loopback (OUTBOUND_ALLOW_LOOPBACK)', () => {
  it('uses the document URL as client_id: code + PKCE + resource at the OAuth AS', async () => {
    const clientId = `${documentsUrl}/clients/cimd.json`;
    served.set('/clients/cimd.json', {
      status: 200,
      headers: { 'cache-control': 'max-age=600' },
      body: JSON.stringify({
        client_id: clientId,
        client_name: 'A document client',
        redirect_uris: [`${server.url}/callback`],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      }),
    });
    realTime();
    const config = await client.discovery(new URL(`${server.url}/oauth2`), clientId, {}, client.None(), {
      ...insecure,
      algorithm: 'oauth2',
    });
    expect(config.serverMetadata().client_id_metadata_document_supported).toBe(true);
    const tokens = await codeFlow(config, 'mcp:read', { resource: mcpResource() });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: clientId, aud: mcpResource() });
  });

  it('refuses a document that names another client_id, redirects, or is over 5 KiB, saying what was wrong', async () => {
    const cases: Array<[string, { status: number; body: string; headers?: Record<string, string> }, RegExp]> = [
      [
        '/clients/other.json',
        {
          status: 200,
          body: JSON.stringify({ client_id: 'https://other.example/c', redirect_uris: [`${server.url}/callback`] }),
        },
        /another client_id/,
      ],
      ['/clients/moved.json', { status: 302, body: '', headers: { location: '/clients/cimd.json' } }, /redirect/],
      ['/clients/large.json', { status: 200, body: JSON.stringify({ pad: 'x'.repeat(6000) }) }, /could not be fetched/],
      ['/clients/secret.json', { status: 200, body: '{}' }, /another client_id|secret/],
      ['/clients/missing.json', { status: 404, body: '{}' }, /HTTP 404/],
    ];
    for (const [path, doc, reason] of cases) {
      served.set(path, doc);
      const clientId = `${documentsUrl}${path}`;
      const token = await fetch(`${server.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: clientId }),
      });
      expect(token.status, path).toBe(401);
      const body = (await token.json()) as { error: string; error_description: string };
      expect(body.error, path).toBe('invalid_client');
      expect(body.error_description, path).toMatch(reason);
    }
  });
});

describe('client metadata document caching', () => {
  const tokenAttempt = (clientId: string) =>
    fetch(`${server.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'unknown', client_id: clientId }),
    }).then(async (r) => ((await r.json()) as { error: string }).error);
  const documentOf = (clientId: string) =>
    JSON.stringify({ client_id: clientId, redirect_uris: [`${server.url}/callback`] });

  it('keeps a document for its max-age (at least 60 s), and a refusal for 30 s', async () => {
    const path = '/clients/cached.json';
    const clientId = `${documentsUrl}${path}`;
    served.set(path, { status: 200, headers: { 'cache-control': 'max-age=5' }, body: documentOf(clientId) });
    // A known client with a bad code: invalid_grant, so the document was fetched and taken.
    expect(await tokenAttempt(clientId)).toBe('invalid_grant');
    expect(await tokenAttempt(clientId)).toBe('invalid_grant');
    expect(hits.get(path)).toBe(1);
    served.set(path, { status: 404, body: '{}' });
    server.clock.advance(30_000); // max-age 5 is raised to the 60 s floor
    expect(await tokenAttempt(clientId)).toBe('invalid_grant');
    server.clock.advance(31_000);
    expect(await tokenAttempt(clientId)).toBe('invalid_client');
    expect(hits.get(path)).toBe(2);
    served.set(path, { status: 200, body: documentOf(clientId) });
    expect(await tokenAttempt(clientId)).toBe('invalid_client'); // the refusal is kept
    expect(hits.get(path)).toBe(2);
    server.clock.advance(31_000);
    expect(await tokenAttempt(clientId)).toBe('invalid_grant');
    expect(hits.get(path)).toBe(3);
  });
});

describe('pairwise subjects (OIDC Core §8.1)', () => {
  const pairwiseClient = (redirect: string) =>
    register(server.url, {
      redirect_uris: [redirect],
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
      subject_type: 'pairwise',
      scope: 'openid profile email',
    });

  it('differ across sectors, stay stable within one, and UserInfo answers the same sub with the person’s claims', async () => {
    const sectorA1 = await pairwiseClient('http://127.0.0.1:8765/callback');
    const sectorA2 = await pairwiseClient('http://127.0.0.1:8765/callback');
    const sectorB = await pairwiseClient('http://localhost:8765/callback');
    const subOf = async (config: client.Configuration, redirectUri: string) => {
      const tokens = await codeFlow(config, 'openid email', { redirectUri });
      return { sub: tokens.claims()!.sub, access: tokens.access_token };
    };
    const a1 = await subOf(sectorA1, 'http://127.0.0.1:8765/callback');
    const a1again = await subOf(sectorA1, 'http://127.0.0.1:8765/callback');
    const a2 = await subOf(sectorA2, 'http://127.0.0.1:8765/callback');
    const b = await subOf(sectorB, 'http://localhost:8765/callback');
    expect(a1.sub).not.toBe('alice');
    expect(a1again.sub).toBe(a1.sub);
    expect(a2.sub).toBe(a1.sub);
    expect(b.sub).not.toBe(a1.sub);
    expect(decodeJwt(a1.access).sub).toBe(a1.sub);
    const info = await client.fetchUserInfo(sectorB, b.access, b.sub);
    expect(info).toMatchObject({ sub: b.sub, email: 'alice@example.com' });
    // Introspecting its refresh token tells another client the pairwise subject, never the user id.
    const offline = await codeFlow(sectorB, 'openid offline_access', { redirectUri: 'http://localhost:8765/callback' });
    const introspected = await fetch(`${server.url}/oidc/introspect`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('demo-app:demo-app-secret').toString('base64')}`,
      },
      body: new URLSearchParams({ token: offline.refresh_token!, token_type_hint: 'refresh_token' }),
    });
    expect(await introspected.json()).toMatchObject({ active: true, sub: b.sub });
  });

  it('a sector_identifier_uri must list every redirect URI; its host is the sector', async () => {
    served.set('/sector.json', {
      status: 200,
      body: JSON.stringify(['http://127.0.0.1:8765/callback', 'http://localhost:8765/callback']),
    });
    const both = await register(server.url, {
      redirect_uris: ['http://127.0.0.1:8765/callback', 'http://localhost:8765/callback'],
      subject_type: 'pairwise',
      sector_identifier_uri: `${documentsUrl}/sector.json`,
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'openid',
    });
    const viaLocalhost = await codeFlow(both, 'openid', { redirectUri: 'http://localhost:8765/callback' });
    const viaLoopback = await codeFlow(both, 'openid', { redirectUri: 'http://127.0.0.1:8765/callback' });
    expect(viaLocalhost.claims()!.sub).toBe(viaLoopback.claims()!.sub);
    await expect(
      register(server.url, {
        redirect_uris: ['http://127.0.0.1:8765/other'],
        subject_type: 'pairwise',
        sector_identifier_uri: `${documentsUrl}/sector.json`,
      }),
    ).rejects.toMatchObject({ error: 'invalid_client_metadata' });
  });
});
