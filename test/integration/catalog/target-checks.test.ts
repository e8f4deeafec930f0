import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, type TestServer } from '../../support/main-server.ts';
import { heldAnswers, startTargetBeside } from '../../support/target-server.ts';

// Issue 33: a deliberately misbehaving target produces exactly the failing checks, and no more.
type Json = Record<string, any>;
let portico: TestServer;
let close: () => Promise<void>;
let base = '';
const { hold, release } = heldAnswers();
/** How the tiny target misbehaves, per issuer path: `/good`, `/wrong-issuer`, `/bad-token`, `/oidc-only`, `/slow`. */
const behave = (
  path: string,
): { issuer: string; rfc8414: boolean; token: { headers: Record<string, string>; body: Json } } => ({
  issuer: path === '/wrong-issuer' ? `${base}/someone-else` : `${base}${path}`,
  rfc8414: path !== '/oidc-only',
  token:
    path === '/bad-token'
      ? { headers: { 'content-type': 'application/json' }, body: { access_token: 'x', token_type: 'mac' } }
      : {
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
          body: { access_token: 'opaque-token', token_type: 'Bearer', expires_in: 300 },
        },
});

beforeAll(async () => {
  const started = await startTargetBeside((req, res) => {
    const url = new URL(req.url!, base);
    const m = /^\/\.well-known\/(oauth-authorization-server|openid-configuration)(\/.*)?$/.exec(url.pathname);
    const tenant = m ? (m[2] ?? '') : url.pathname.replace(/\/(token|openid)$/, '').replace(/\/\.well-known.*$/, '');
    const oidcSuffix = /^(\/[a-z-]+)\/\.well-known\/openid-configuration$/.exec(url.pathname)?.[1];
    const path = oidcSuffix ?? tenant;
    const b = behave(path);
    const metadata = { issuer: b.issuer, token_endpoint: `${base}${path}/token` };
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const answer = () =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      // `/slow` holds its answers until the test releases them, so runs stay under way as long as it needs.
      if (path === '/slow') hold(answer);
      else answer();
    };
    if (m && b.rfc8414) return send(200, metadata);
    if (oidcSuffix) return send(200, metadata);
    if (url.pathname.endsWith('/token')) return send(200, b.token.body, b.token.headers);
    return send(404, { error: 'not_found' });
  });
  ({ base, portico, close } = started);
});
afterAll(() => close());

const run = (path: string, headers: Record<string, string> = {}) =>
  exchange(
    portico.url,
    '/api/protocols/oauth2/demo/client-credentials',
    json({ target: { issuer: `${base}${path}`, client_id: 'c', client_secret: 's' } }, headers),
  );
const failed = (body: Json) => (body.checks as Json[]).filter((c) => c.verdict === 'failed');

describe('a misbehaving target', () => {
  it('a well-behaved one passes every check', async () => {
    const res = await run('/good');
    expect(res.body.status).toBe('succeeded');
    expect(failed(res.body)).toEqual([]);
  });

  it('metadata naming another issuer fails exactly "issuer match" (RFC 8414 §3.3)', async () => {
    const res = await run('/wrong-issuer');
    expect(failed(res.body)).toEqual([
      {
        check: 'issuer match',
        verdict: 'failed',
        rule: 'RFC 8414 §3.3',
        detail: `the metadata names issuer "${base}/someone-else", not ${base}/wrong-issuer`,
      },
    ]);
    // Issue 45 item 39: metadata naming another issuer stops the run before the client's secret is sent.
    expect(res.body.status).toBe('failed');
    expect(res.body.error).toMatch(/stops before any credential is sent/);
    expect(res.body.exchanges.map((x: Json) => new URL(x.request.url).pathname)).toEqual([
      '/.well-known/oauth-authorization-server/wrong-issuer',
    ]);
    for (const x of res.body.exchanges as Json[]) {
      expect(Object.keys(x.request.headers ?? {}).map((h) => h.toLowerCase())).not.toContain('authorization');
      expect(JSON.stringify(x.request.body ?? '')).not.toContain('client_secret');
    }
    // The run page shows each verdict with its rule.
    const page = await fetch(`${portico.url}/runs/${res.body.run_id}`, {
      headers: { accept: 'text/markdown', authorization: `Bearer ${res.body.run_token}` },
    });
    expect(await page.text()).toMatch(/\| issuer match \| \*\*failed\*\* \| RFC 8414 §3\.3 \|/);
  });

  it('a token response that is cached and names an unregistered token_type fails exactly "token response"', async () => {
    const res = await run('/bad-token');
    expect(failed(res.body).map((c) => [c.check, c.rule, c.detail])).toEqual([
      ['token response', 'RFC 6749 §5.1', 'token_type mac is not registered; Cache-Control lacks no-store'],
    ]);
  });

  it('without RFC 8414 metadata, OpenID discovery is used and judged by its own rule', async () => {
    const res = await run('/oidc-only');
    expect(res.body.exchanges.map((x: Json) => x.response.status)).toEqual([404, 200, 200]);
    expect(res.body.checks[0]).toMatchObject({
      check: 'issuer match',
      verdict: 'passed',
      rule: 'OpenID Connect Discovery 1.0 §4.3',
    });
  });

  it('at most two targeted runs at once per client address: a third is 429 rate_limited', async () => {
    const prefer = { prefer: 'respond-async' };
    const first = await run('/slow', prefer);
    const second = await run('/slow', prefer);
    expect([first.status, second.status]).toEqual([202, 202]);
    const third = await run('/slow', prefer);
    expect([third.status, third.body.error]).toEqual([429, 'rate_limited']);
    // Once they end, the client may run again.
    for (const { run_id, run_token } of [first.body, second.body])
      while (
        (await exchange(portico.url, `/api/runs/${run_id}`, { headers: { authorization: `Bearer ${run_token}` } })).body
          .status === 'running'
      )
        release();
    expect((await run('/good')).status).toBe(201);
  });

  // Issue 45 item 39: the limit is decided in one turn, so concurrent starts cannot both take the last place.
  it('four concurrent targeted runs from one client: exactly two start, two are 429', async () => {
    // Named by `localhost`, so vetting the target resolves a name: real I/O between check and start.
    const viaName = () =>
      exchange(
        portico.url,
        '/api/protocols/oauth2/demo/client-credentials',
        json(
          { target: { issuer: `${base.replace('127.0.0.1', 'localhost')}/slow`, client_id: 'c', client_secret: 's' } },
          { prefer: 'respond-async' },
        ),
      );
    const answers = await Promise.all(Array.from({ length: 4 }, viaName));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 429, 429]);
    for (const { run_id, run_token } of answers.filter((a) => a.status === 202).map((a) => a.body))
      while (
        (await exchange(portico.url, `/api/runs/${run_id}`, { headers: { authorization: `Bearer ${run_token}` } })).body
          .status === 'running'
      )
        release();
    expect((await run('/good')).status).toBe(201);
  });
});
