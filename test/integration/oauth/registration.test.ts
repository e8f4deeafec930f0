import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { form, json, startMainServer, EXTENSIONS_ON, type TestServer } from '../../support/main-server.ts';

/** RFC 7591 and RFC 7592 on the real server: every refusal, the rate limit, the lapse, and the SSRF table. */
let server: TestServer;
let canary: Server;
let canaryPort: number;
let canaryHits = 0;
beforeAll(async () => {
  // The hook stays off: nothing may reach the loopback canary.
  server = await startMainServer({ env: { ...EXTENSIONS_ON, REGISTRATIONS_PER_HOUR: '1000' } });
  canary = createServer((_req, res) => {
    canaryHits += 1;
    res.end('[]');
  });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  canaryPort = (canary.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => canary.close(resolve));
  await server.close();
});

const register = async (metadata: unknown, target = server) => {
  const res = await fetch(`${target.url}/oauth2/register`, json(metadata));
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
};
const valid = () => ({ redirect_uris: [`${server.url}/callback`], client_name: 'Valid' });

describe('POST /oauth2/register (RFC 7591)', () => {
  it('answers 201 with the client, a secret for secret methods, and its management token and URI, never cached', async () => {
    const res = await register(valid());
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      client_name: 'Valid',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      subject_type: 'public',
      require_pushed_authorization_requests: false,
    });
    expect(res.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.client_secret_expires_at).toBeGreaterThan(res.body.client_id_issued_at);
    expect(res.body.registration_client_uri).toBe(`${server.url}/oauth2/register/${res.body.client_id}`);
    const none = await register({ ...valid(), token_endpoint_auth_method: 'none' });
    expect(none.body.client_secret).toBeUndefined();
  });

  it('both metadata documents advertise it, PAR, and client ID metadata documents', async () => {
    for (const path of ['/.well-known/oauth-authorization-server/oauth2', '/.well-known/openid-configuration']) {
      const metadata = (await (await fetch(`${server.url}${path}`)).json()) as Record<string, any>;
      expect(metadata.registration_endpoint, path).toBe(`${server.url}/oauth2/register`);
      expect(metadata.pushed_authorization_request_endpoint, path).toMatch(/\/(oauth2|oidc)\/par$/);
      expect(metadata.client_id_metadata_document_supported, path).toBe(true);
    }
  });

  const refusals: Array<[string, unknown, string]> = [
    ['not an object', ['x'], 'invalid_client_metadata'],
    ['no redirect_uris with the code grant', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['a redirect URI with a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri'],
    ['plain http off loopback', { redirect_uris: ['http://app.example/cb'] }, 'invalid_redirect_uri'],
    ['a relative redirect URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    ['a custom scheme', { redirect_uris: ['com.example.app:/cb'] }, 'invalid_redirect_uri'],
    ['credentials in a redirect URI', { redirect_uris: ['https://u:p@app.example/cb'] }, 'invalid_redirect_uri'],
    ['redirect_uris not an array', { redirect_uris: 'https://app.example/cb' }, 'invalid_redirect_uri'],
    // Issue 45 item 39: only a URI's normal form is stored (it is matched exactly).
    ['an upper-case host', { redirect_uris: ['https://APP.example/cb'] }, 'invalid_redirect_uri'],
    ['a raw space', { redirect_uris: ['https://app.example/c b'] }, 'invalid_redirect_uri'],
    ['a dot segment', { redirect_uris: ['https://app.example/a/../cb'] }, 'invalid_redirect_uri'],
    ['a default port spelled out', { redirect_uris: ['https://app.example:443/cb'] }, 'invalid_redirect_uri'],
    ['a markup character', { redirect_uris: ['https://app.example/cb?x="><script>'] }, 'invalid_redirect_uri'],
    [
      'grant_types without response_types to match',
      { redirect_uris: ['https://app.example/cb'], grant_types: ['authorization_code'], response_types: [] },
      'invalid_client_metadata',
    ],
    [
      'a response type without its grant',
      { redirect_uris: ['https://app.example/cb'], grant_types: ['client_credentials'], response_types: ['code'] },
      'invalid_client_metadata',
    ],
    [
      'an unknown grant',
      { redirect_uris: ['https://app.example/cb'], grant_types: ['password'] },
      'invalid_client_metadata',
    ],
    [
      'an implicit response type',
      { redirect_uris: ['https://app.example/cb'], response_types: ['token'] },
      'invalid_client_metadata',
    ],
    [
      'an unsupported authentication method',
      { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'tls_client_auth' },
      'invalid_client_metadata',
    ],
    [
      'client_credentials without authentication',
      { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
      'invalid_client_metadata',
    ],
    [
      'jwks and jwks_uri both',
      {
        redirect_uris: ['https://app.example/cb'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b' }] },
        jwks_uri: 'https://app.example/jwks',
      },
      'invalid_client_metadata',
    ],
    [
      'private_key_jwt without keys',
      { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
    ],
    [
      'a private key in jwks',
      {
        redirect_uris: ['https://app.example/cb'],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b', d: 'secret' }] },
      },
      'invalid_client_metadata',
    ],
    [
      'an unknown scope',
      { redirect_uris: ['https://app.example/cb'], scope: 'openid admin' },
      'invalid_client_metadata',
    ],
    [
      'an unknown subject type',
      { redirect_uris: ['https://app.example/cb'], subject_type: 'secret' },
      'invalid_client_metadata',
    ],
    [
      'pairwise over two hosts without a sector',
      { redirect_uris: ['https://a.example/cb', 'https://b.example/cb'], subject_type: 'pairwise' },
      'invalid_client_metadata',
    ],
    [
      'require_pushed_authorization_requests not a boolean',
      { redirect_uris: ['https://app.example/cb'], require_pushed_authorization_requests: 'yes' },
      'invalid_client_metadata',
    ],
    [
      'a client_name that is not text',
      { redirect_uris: ['https://app.example/cb'], client_name: 7 },
      'invalid_client_metadata',
    ],
  ];
  it.each(refusals)('refuses %s', async (_name, metadata, error) => {
    const res = await register(metadata);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(res.body.error_description).toBeTypeOf('string');
  });

  // Issue 45 item 39: stored values are validated and normalised before they are kept, not only escaped on pages.
  it('keeps shown text in one normal form without control or bidi characters, and URLs normalised without credentials', async () => {
    const refused = async (metadata: Record<string, unknown>, say: string) => {
      const res = await register({ ...valid(), ...metadata });
      expect([res.status, res.body.error]).toEqual([400, 'invalid_client_metadata']);
      expect(res.body.error_description).toContain(say);
    };
    // U+202E turns "Bank\u202Eppa" into what reads as "Bankapp" reversed on the consent page.
    await refused({ client_name: 'My Bank\u202Egnp.exe' }, 'bidirectional');
    await refused({ client_name: 'line one\nline two' }, 'control');
    await refused({ contacts: ['ops@example.com\u0000'] }, 'control');
    await refused({ contacts: [`${'a'.repeat(400)}@example.com`] }, 'at most 320 characters');
    await refused({ software_id: 'id\u2066x' }, 'bidirectional');
    await refused({ logo_uri: 'https://user:pass@example.com/logo.png' }, 'credentials');
    const kept = await register({
      ...valid(),
      client_name: 'Cafe\u0301',
      client_uri: 'HTTPS://Example.COM/a/../b',
      policy_uri: 'https://example.com/p?q=a b',
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(201);
    expect(kept.body).toMatchObject({
      client_name: 'Café',
      client_uri: 'https://example.com/b',
      policy_uri: 'https://example.com/p?q=a%20b',
    });
    const read = await fetch(kept.body.registration_client_uri as string, {
      headers: { authorization: `Bearer ${kept.body.registration_access_token as string}` },
    });
    expect(await read.json()).toMatchObject({ client_name: 'Café', client_uri: 'https://example.com/b' });
  });

  it('refuses a body that is not JSON with the contract error', async () => {
    const res = await fetch(`${server.url}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('counts registrations per address an hour: over the limit, 429', async () => {
    const limited = await startMainServer({ env: { ...EXTENSIONS_ON, REGISTRATIONS_PER_HOUR: '3' } });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await register(valid(), limited)).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
      const refused = await register(valid(), limited);
      expect(refused.body.error).toBe('rate_limited');
      expect(refused.body.error_description).toMatch(/3 client registrations an hour/);
    } finally {
      await limited.close();
    }
  });
});

describe('RFC 7592 management and the 24-hour lapse', () => {
  const manage = (uri: string, token: string | undefined, init: RequestInit = {}) =>
    fetch(uri, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...init.headers } });

  it('refuses a missing, wrong or another client’s token with 401 and a challenge, and a PUT that renames the client', async () => {
    const a = (await register(valid())).body;
    const b = (await register(valid())).body;
    for (const token of [undefined, 'wrong', b.registration_access_token]) {
      const res = await manage(a.registration_client_uri, token);
      expect(res.status, String(token)).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
    }
    const put = (body: unknown) =>
      manage(a.registration_client_uri, a.registration_access_token, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wrongId = await put({ ...valid(), client_id: b.client_id });
    expect([wrongId.status, ((await wrongId.json()) as any).error]).toEqual([400, 'invalid_request']);
    const wrongSecret = await put({ ...valid(), client_id: a.client_id, client_secret: 'not-it' });
    expect(wrongSecret.status).toBe(400);
    const badMetadata = await put({ client_id: a.client_id, redirect_uris: ['http://app.example/cb'] });
    expect(((await badMetadata.json()) as any).error).toBe('invalid_redirect_uri');
    const ok = await put({ ...valid(), client_id: a.client_id, client_secret: a.client_secret, client_name: 'B' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).client_name).toBe('B');
    // The secret still authenticates: only its hash was kept, and the update did not change it.
    const token = await fetch(
      `${server.url}/oauth2/token`,
      form(
        { grant_type: 'client_credentials' },
        { authorization: `Basic ${Buffer.from(`${a.client_id}:${a.client_secret}`).toString('base64')}` },
      ),
    );
    expect(((await token.json()) as any).error).toBe('unauthorized_client');
  });

  it('of two requests with one registration access token, only the first is served (each rotates it)', async () => {
    const c = (await register(valid())).body;
    const both = await Promise.all([
      manage(c.registration_client_uri, c.registration_access_token),
      manage(c.registration_client_uri, c.registration_access_token),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('a client unused for 24 hours is gone; one used within them lives on', async () => {
    const idle = (await register({ grant_types: ['client_credentials'], scope: 'api:read' })).body;
    const busy = (await register({ grant_types: ['client_credentials'], scope: 'api:read' })).body;
    const tokenFor = (c: Record<string, any>) =>
      fetch(
        `${server.url}/oauth2/token`,
        form(
          { grant_type: 'client_credentials' },
          { authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}` },
        ),
      );
    expect((await tokenFor(busy)).status).toBe(200);
    server.clock.advance(20 * 3600_000);
    expect((await tokenFor(busy)).status).toBe(200);
    server.clock.advance(5 * 3600_000);
    const lapsed = await tokenFor(idle);
    expect([lapsed.status, ((await lapsed.json()) as any).error]).toEqual([401, 'invalid_client']);
    expect((await tokenFor(busy)).status).toBe(200);
    expect((await manage(idle.registration_client_uri, idle.registration_access_token)).status).toBe(401);
  });
});

describe('the outbound guard with the hook off: client ID metadata documents and sector_identifier_uri', () => {
  const targets = [
    'http://127.0.0.1:PORT/c',
    'https://127.0.0.1:PORT/c',
    'https://localhost:PORT/c',
    'https://[::1]:PORT/c',
    'https://[::ffff:127.0.0.1]:PORT/c',
    'https://2130706433:PORT/c',
    'https://0.0.0.0:PORT/c',
    'https://10.0.0.1/c',
    'https://172.16.5.4/c',
    'https://192.168.1.1/c',
    'https://100.64.0.1/c',
    'https://169.254.169.254/latest/meta-data',
    'https://[fe80::1]/c',
    'https://[fd00::1]/c',
    'https://metadata.google.internal/c',
    'https://printer.local/c',
    'http://example.com/c',
  ].map((t) => t.replace('PORT', '{port}'));

  it.each(targets)('client_id %s: invalid_client at the token endpoint and on the authorization page', async (raw) => {
    const clientId = raw.replace('{port}', String(canaryPort));
    const before = canaryHits;
    const token = await fetch(
      `${server.url}/oauth2/token`,
      form({ grant_type: 'authorization_code', code: 'x', client_id: clientId }),
    );
    expect(token.status).toBe(401);
    const body = (await token.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_client');
    expect(body.error_description).toMatch(
      /client metadata document .* could not be fetched: The destination is not allowed/,
    );
    const page = await fetch(
      `${server.url}/oauth2/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: 'https://app.example/cb', response_type: 'code' })}`,
      { redirect: 'manual' },
    );
    expect(page.status).toBe(401);
    expect(await page.text()).toMatch(/invalid_client/);
    expect(canaryHits).toBe(before);
  });

  it.each(targets)('sector_identifier_uri %s: invalid_client_metadata', async (raw) => {
    const before = canaryHits;
    const res = await register({
      redirect_uris: ['https://app.example/cb'],
      subject_type: 'pairwise',
      sector_identifier_uri: raw.replace('{port}', String(canaryPort)),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(res.body.error_description).toMatch(
      /sector_identifier_uri could not be fetched: The destination is not allowed/,
    );
    expect(canaryHits).toBe(before);
  });

  it('a client_id URL without a path, or with a fragment, is refused before any fetch', async () => {
    for (const clientId of ['https://app.example', 'https://app.example/c#x', 'https://app.example/a/../c']) {
      const res = await fetch(
        `${server.url}/oauth2/token`,
        form({ grant_type: 'authorization_code', code: 'x', client_id: clientId }),
      );
      expect(((await res.json()) as any).error_description, clientId).toMatch(/cannot be used: the URL/);
    }
  });
});

describe('PAR and resource indicators', () => {
  it('PAR refuses an unauthenticated client, an unregistered redirect URI and a pushed request_uri; a request_uri works once', async () => {
    const basic = { authorization: `Basic ${Buffer.from('demo-app:demo-app-secret').toString('base64')}` };
    const request = {
      response_type: 'code',
      client_id: 'demo-app',
      redirect_uri: `${server.url}/callback`,
      scope: 'openid',
    };
    const unauthenticated = await fetch(`${server.url}/oidc/par`, form(request));
    expect(unauthenticated.status).toBe(401);
    const badRedirect = await fetch(
      `${server.url}/oidc/par`,
      form({ ...request, redirect_uri: 'https://evil.example/' }, basic),
    );
    expect([badRedirect.status, ((await badRedirect.json()) as any).error]).toEqual([400, 'invalid_request']);
    const nested = await fetch(`${server.url}/oidc/par`, form({ ...request, request_uri: 'urn:x' }, basic));
    expect(nested.status).toBe(400);
    const badResource = await fetch(
      `${server.url}/oidc/par`,
      form({ ...request, resource: 'https://elsewhere.example/' }, basic),
    );
    expect(((await badResource.json()) as any).error).toBe('invalid_target');
    const pushed = await fetch(`${server.url}/oidc/par`, form(request, basic));
    expect(pushed.status).toBe(201);
    const { request_uri, expires_in } = (await pushed.json()) as { request_uri: string; expires_in: number };
    expect(request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(expires_in).toBe(60);
    const authorize = `${server.url}/oidc/authorize?${new URLSearchParams({ client_id: 'demo-app', request_uri })}`;
    const landed = await authorizeAsBrowser(authorize);
    expect(new URL(landed.location!).searchParams.get('code')).toBeTruthy();
    const again = await fetch(authorize, { redirect: 'manual' });
    expect(again.status).toBe(400);
    expect(await again.text()).toMatch(/invalid_request_uri/);
    // Expired: 60 seconds later the request_uri is refused.
    const late = (await (await fetch(`${server.url}/oidc/par`, form(request, basic))).json()) as {
      request_uri: string;
    };
    server.clock.advance(61_000);
    const expired = await fetch(
      `${server.url}/oidc/authorize?${new URLSearchParams({ client_id: 'demo-app', request_uri: late.request_uri })}`,
      { redirect: 'manual' },
    );
    expect(expired.status).toBe(400);
  });

  it('the consent page names the resource the access is for', async () => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: 'demo-app',
      redirect_uri: `${server.url}/callback`,
      scope: 'mcp:read',
      resource: `${server.url}/mcp/user`,
    });
    const landed = await authorizeAsBrowser(`${server.url}/oauth2/authorize?${params}`);
    const consent = landed.pages.find((p) => p.body.includes('Allow access?'))!;
    expect(consent.body).toContain(`The access is for <code>${server.url}/mcp/user</code> only.`);
  });

  it('the token endpoint refuses a resource other than the one authorized, and an unknown one for client_credentials', async () => {
    const machine = {
      authorization: `Basic ${Buffer.from('machine-client:machine-client-secret').toString('base64')}`,
    };
    const unknown = await fetch(
      `${server.url}/oauth2/token`,
      form({ grant_type: 'client_credentials', resource: 'https://x.example/' }, machine),
    );
    expect([unknown.status, ((await unknown.json()) as any).error]).toEqual([400, 'invalid_target']);
    const malformed = await fetch(
      `${server.url}/oauth2/token`,
      form({ grant_type: 'client_credentials', resource: 'not a uri' }, machine),
    );
    expect(((await malformed.json()) as any).error).toBe('invalid_target');
    const bound = await fetch(
      `${server.url}/oauth2/token`,
      form({ grant_type: 'client_credentials', resource: `${server.url}/mcp/user` }, machine),
    );
    const token = ((await bound.json()) as any).access_token as string;
    expect(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).aud).toBe(`${server.url}/mcp/user`);
    // A token for /mcp/user is not a token for the demo resource (RFC 8707 audience).
    const elsewhere = await fetch(`${server.url}/oauth2/resource`, { headers: { authorization: `Bearer ${token}` } });
    expect(elsewhere.status).toBe(401);
  });
});
