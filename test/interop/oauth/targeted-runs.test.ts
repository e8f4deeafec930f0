import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 33: flows run against an authorization server of the user's own: panva's oidc-provider, an
// independent implementation, on loopback through the outbound guard's test hook (OUTBOUND_ALLOW_LOOPBACK).
type Json = Record<string, any>;
let portico: TestServer;
let guarded: TestServer;
let provider: Server;
let issuer = '';
let canary: NetServer;
let canaryPort = 0;
let canaryConnections = 0;
let redirector: Server;
let redirectorUrl = '';

const listen = (server: Server | NetServer) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );

beforeAll(async () => {
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((r) => probe.close(r));
  issuer = `http://127.0.0.1:${port}`;
  portico = await startMainServer({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  const oidc = new Provider(issuer, {
    clients: [
      {
        client_id: 'web-client',
        client_secret: 'the-web-client-secret-0123456789',
        grant_types: ['authorization_code'],
        redirect_uris: [`${portico.url}/runs/callback`],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: 'machine-client',
        client_secret: 'a-secret-of-the-target-0123456789',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: 'post-client',
        client_secret: 'another-secret-of-the-target-0123',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    scopes: ['openid', 'api:read'],
    features: { clientCredentials: { enabled: true }, introspection: { enabled: true } },
  });
  provider = createServer(oidc.callback());
  await new Promise<void>((resolve) => provider.listen(port, '127.0.0.1', () => resolve()));
  guarded = await startMainServer();
  canary = createNetServer((socket) => {
    canaryConnections += 1;
    socket.destroy();
  });
  canaryPort = await listen(canary);
  // A loopback server (reachable only with the hook on) whose metadata redirects to private addresses.
  redirector = createServer((req, res) =>
    res
      .writeHead(302, {
        location: req.url!.includes('openid') ? 'https://169.254.169.254/latest' : 'https://10.0.0.7/',
      })
      .end(),
  );
  redirectorUrl = `http://127.0.0.1:${await listen(redirector)}`;
});
afterAll(async () => {
  await Promise.all([portico.close(), guarded.close()]);
  provider.closeAllConnections();
  await new Promise((r) => provider.close(r));
  await new Promise((r) => redirector.close(r));
  await new Promise((r) => canary.close(r));
  expect(canaryConnections).toBe(0);
});

/**
 * Plays the person's browser at oidc-provider's development interactions: sign in (any login), then
 * consent, carrying its cookies; answers where the provider sends the browser back to.
 */
async function signInAtProvider(authorizationUrl: string): Promise<URL> {
  const jar = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  };
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 12; hop++) {
    const res = await go(url.href);
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, url);
      if (!next.href.startsWith(issuer)) return next;
      url = next;
      continue;
    }
    const page = await res.text();
    const action = new URL(/<form[^>]*action="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&'), url);
    const fields = new URLSearchParams(
      [...page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (/name="login"/.test(page)) {
      fields.set('login', 'alice');
      fields.set('password', 'any');
    }
    const posted = await go(action.href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    url = new URL(posted.headers.get('location')!, action);
  }
  throw new Error('the sign-in did not come back');
}

const run = (server: TestServer, flow: string, target: Json) => {
  const [protocol, id] = flow.includes('/') ? flow.split('/') : ['oauth2', flow];
  return exchange(server.url, `/api/protocols/${protocol}/demo/${id}`, json({ target }));
};
const verdicts = (body: Json) => Object.fromEntries((body.checks as Json[]).map((c) => [c.check, c.verdict]));

describe('runs against your own authorization server (oidc-provider on loopback, the test hook on)', () => {
  it('client credentials: discovers the target, authenticates with Basic, and every check holds', async () => {
    const res = await run(portico, 'client-credentials', {
      issuer,
      client_id: 'machine-client',
      client_secret: 'a-secret-of-the-target-0123456789',
      scope: 'api:read',
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(201);
    expect(res.body).toMatchObject({ status: 'succeeded', target: { issuer, client_id: 'machine-client' } });
    // RFC 8414 metadata first (oidc-provider serves it), so OpenID discovery is not needed.
    expect(res.body.exchanges.map((x: Json) => `${x.response.status} ${new URL(x.request.url).pathname}`)).toEqual([
      '200 /.well-known/oauth-authorization-server',
      '200 /token',
    ]);
    expect(verdicts(res.body)).toEqual({ 'issuer match': 'passed', 'token response': 'passed' });
    // The target's secret is never in the log whole.
    // A targeted run is read with its run_token (issue 45 item 35).
    const withToken = { headers: { authorization: `Bearer ${res.body.run_token}` } };
    const logged = JSON.stringify(
      (await exchange(portico.url, `/api/streams/run:${res.body.run_id}/export`, withToken)).body,
    );
    expect(logged).not.toContain('a-secret-of-the-target-0123456789');
    expect(logged).toContain('"check":"issuer match"');
  });

  it('client_secret_post, and introspection where the target advertises it', async () => {
    const res = await run(portico, 'token-introspection', {
      issuer,
      client_id: 'post-client',
      client_secret: 'another-secret-of-the-target-0123',
      token_endpoint_auth_method: 'client_secret_post',
      scope: 'api:read',
    });
    expect(res.body.status, JSON.stringify(res.body.error)).toBe('succeeded');
    expect(res.body.checks.map((c: Json) => [c.check, c.verdict])).toEqual([
      ['issuer match', 'passed'],
      ['token response', 'passed'],
      ['introspection response', 'passed'],
      ['introspection response', 'passed'],
    ]);
    expect(res.body.exchanges.at(-2).request.body).toMatchObject({ client_id: 'post-client' });
  });

  it.each([
    ['oauth2/authorization-code-pkce', {}],
    ['oidc/authorization-code-id-token', { 'ID token signature': 'passed', 'ID token claims': 'passed' }],
  ])(
    '%s: the run waits, the test signs in at oidc-provider as a person would, and every check holds',
    async (flow, idTokenChecks) => {
      const started = await run(portico, flow, {
        issuer,
        client_id: 'web-client',
        client_secret: 'the-web-client-secret-0123456789',
        scope: 'openid',
      });
      expect([started.status, started.body.status]).toEqual([202, 'awaiting_user']);
      const back = await signInAtProvider(started.body.authorization_url);
      expect(back.origin + back.pathname).toBe(`${portico.url}/runs/callback`);
      const returned = await fetch(back, { redirect: 'manual' });
      expect(returned.status).toBe(303);
      let done: Json = started.body;
      while (done.status === 'awaiting_user' || done.status === 'running')
        done = (
          await exchange(portico.url, `/api/runs/${started.body.run_id}`, {
            headers: { authorization: `Bearer ${started.body.run_token}` },
          })
        ).body;
      expect(done.status, done.error).toBe('succeeded');
      expect(verdicts(done)).toEqual({
        'issuer match': 'passed',
        'PKCE advertised': 'passed',
        'state echoed': 'passed',
        'iss parameter': 'passed',
        'token response': 'passed',
        'PKCE honoured': 'passed',
        ...idTokenChecks,
      });
    },
  );

  it('a wrong secret: the run fails on the token endpoint, and the failed check says which rule', async () => {
    const res = await run(portico, 'client-credentials', {
      issuer,
      client_id: 'machine-client',
      client_secret: 'wrong',
    });
    expect(res.body.status).toBe('failed');
    expect(res.body.error).toMatch(/token endpoint answered HTTP 401 invalid_client/);
    expect(res.body.checks.find((c: Json) => c.check === 'token response')).toMatchObject({
      verdict: 'failed',
      rule: 'RFC 6749 §5.1',
    });
  });

  it('refuses flows that cannot run against a target, and a target without its secret', async () => {
    const flow = await run(portico, 'dpop-bound-token', { issuer, client_id: 'machine-client' });
    expect([flow.status, flow.body.error]).toEqual([400, 'invalid_request']);
    const noSecret = await run(portico, 'client-credentials', {
      issuer,
      client_id: 'machine-client',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect([noSecret.status, noSecret.body.error]).toEqual([400, 'invalid_request']);
  });

  it('with the hook on, a redirect from loopback to a private or metadata address is still refused', async () => {
    const res = await run(portico, 'client-credentials', { issuer: redirectorUrl, client_id: 'x' });
    expect(res.body.status).toBe('failed');
    expect(res.body.error).toMatch(/destination is not allowed: .*(private|linkLocal)/);
  });
});

describe('the outbound guard with the hook off refuses without a connection', () => {
  const table = [
    `http://127.0.0.1:${0}`,
    'https://127.0.0.1:PORT/',
    'https://localhost:PORT/',
    'https://[::1]:PORT/',
    'https://[::ffff:127.0.0.1]:PORT/',
    'https://[::ffff:7f00:1]:PORT/',
    'https://2130706433:PORT/',
    'https://0x7f.1:PORT/',
    'https://0177.0.0.1:PORT/',
    'https://127.1:PORT/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.1.1/',
    'https://100.64.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://0.0.0.0:PORT/',
    'https://metadata.google.internal/',
    'https://printer.local/',
    'https://user:pass@example.com/',
    'http://example.com/',
    'ftp://example.com/',
  ];
  it.each(table)('%s', async (raw) => {
    const target = raw.replace('PORT', String(canaryPort)).replace(':0', `:${canaryPort}`);
    const res = await run(guarded, 'client-credentials', { issuer: target, client_id: 'x' });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatch(/^(destination_not_allowed|invalid_request)$/);
  });

  it('the loopback server itself, reachable with the hook, is refused without it', async () => {
    const res = await run(guarded, 'client-credentials', { issuer, client_id: 'machine-client', client_secret: 's' });
    expect([res.status, res.body.error]).toEqual([400, 'destination_not_allowed']);
  });
});
