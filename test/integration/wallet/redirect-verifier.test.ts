import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { freePort, startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

/**
 * Issue 19, behaviour 4: a scripted verifier (the wallet's target) whose response endpoint answers
 * each kind of `redirect_uri`. The wallet passes on only an https URL without userinfo on a public
 * host, reports the refusal otherwise, and never fetches the redirect itself.
 */
let main: TestServer;
let wallet: TestWallet;
let verifier: Server;
let origin: string;
let nextRedirect: unknown;
const received: string[] = [];

beforeAll(async () => {
  main = await startMainServer();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  verifier = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      received.push(`${req.method} ${req.url}`);
      if (req.method === 'POST' && req.url === '/response' && new URLSearchParams(body).has('vp_token')) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(nextRedirect === undefined ? {} : { redirect_uri: nextRedirect }));
      } else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    });
  });
  await new Promise<void>((resolve) => verifier.listen(port, '127.0.0.1', resolve));
  wallet = await startWalletServer({
    clock: main.clock,
    env: { BASE_URL: main.url, WALLET_ISSUER_BASE_URL: main.url, WALLET_TARGET_BASE_URL: origin },
  });
});
afterAll(async () => {
  await wallet.close();
  await new Promise((resolve) => verifier.close(resolve));
  await main.close();
});

/** An unsigned by-value request (redirect_uri prefix) answered to the scripted verifier. */
const requestUri = (state: string) => {
  const params = new URLSearchParams({
    client_id: `redirect_uri:${origin}/response`,
    response_type: 'vp_token',
    response_mode: 'direct_post',
    response_uri: `${origin}/response`,
    nonce: `n-${state}`,
    state,
    dcql_query: JSON.stringify({
      credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }],
    }),
    client_metadata: JSON.stringify({ vp_formats_supported: { 'dc+sd-jwt': {} } }),
  });
  return `openid4vp://?${params}`;
};

describe('the verifier-provided redirect_uri after a presentation', () => {
  it.each([
    ['https://verifier.example/done?response_code=abc', undefined],
    ['https://verifier.example:8443/done', undefined],
    ['http://verifier.example/done', 'not https'],
    ['https://user:pw@verifier.example/done', 'carries userinfo'],
    ['https://localhost/done', 'an internal host name'],
    ['https://wallet.internal/done', 'an internal host name'],
    ['https://127.0.0.1/done', 'an IP address in the loopback range'],
    ['https://192.168.1.10/done', 'an IP address in the private range'],
    ['https://[fe80::1]/done', 'an IP address in the linkLocal range'],
    ['javascript:alert(document.cookie)', 'not https'],
    [{ href: 'https://verifier.example' }, 'not a string'],
  ])('%s -> %s', async (redirect, refusal) => {
    nextRedirect = redirect;
    const before = received.length;
    const res = await fetch(`${wallet.url}/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-session': 'redirects' },
      body: JSON.stringify({ uri: requestUri(`s${before}`) }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body.upstream_status).toBe(200);
    if (refusal === undefined) {
      expect(body.redirect_uri).toBe(redirect);
      expect(body.redirect_uri_refused).toBeUndefined();
    } else {
      expect(body.redirect_uri).toBeUndefined();
      expect(body.redirect_uri_refused).toBe(refusal);
    }
    // The wallet answered the response endpoint and fetched nothing else from the verifier.
    expect(received.slice(before)).toEqual(['POST /response']);
  });
});
