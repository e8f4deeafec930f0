import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { rewriteCookie, rewriteLocation } from '../../../adapters/http/main/wallet-forward.ts';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { freePort, startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 17: the main origin forwards /wallet-harness/* to WALLET_BACKEND_ORIGIN.
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function pair(): Promise<{ main: TestServer; wallet: TestWallet }> {
  const wallet = await startWalletServer();
  const main = await startMainServer({ env: { WALLET_URL: wallet.url, WALLET_BACKEND_ORIGIN: wallet.url } });
  open.push(main, wallet);
  return { main, wallet };
}

describe('the /wallet-harness/ forward', () => {
  it('reaches the wallet: sessions, cookies scoped under the prefix, documents naming this origin', async () => {
    const { main } = await pair();
    const res = await fetch(`${main.url}/wallet-harness/api/session`);
    expect(res.status).toBe(200);
    const id = res.headers.get('x-wallet-session')!;
    expect(res.headers.get('set-cookie')).toBe(
      `wallet_session=${id}; Path=/wallet-harness/; Max-Age=1200; HttpOnly; SameSite=Lax`,
    );
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const again = (await (
      await fetch(`${main.url}/wallet-harness/api/session`, { headers: { 'x-wallet-session': id } })
    ).json()) as { wallet_session_id: string };
    expect(again.wallet_session_id).toBe(id);
    const skill = await (
      await fetch(`${main.url}/wallet-harness/.well-known/agent-skills/use-wallet-harness/SKILL.md`)
    ).text();
    expect(skill).toContain(`W=${main.url}/wallet-harness`);
    const recipes = await (await fetch(`${main.url}/wallet-harness/llms.txt`)).text();
    expect(recipes).toContain(`${main.url}/wallet-harness/llms-full.txt`);
    // Bodies are streamed through; the wallet's own answers (and limits) come back as they are.
    const post = await fetch(`${main.url}/wallet-harness/api/issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-session': id },
      body: '{"credential_configuration_id":"x"}',
    });
    // This wallet's issuer (BASE_URL) does not listen: the wallet's own 502, streamed back as it is.
    expect(post.status).toBe(502);
    expect(await post.json()).toMatchObject({ error: 'upstream_error' });
    const big = await fetch(`${main.url}/wallet-harness/api/issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(70 * 1024) }),
    });
    expect(big.status).toBe(413);
    const bare = await fetch(`${main.url}/wallet-harness`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/wallet-harness/');
  });

  it('answers 502 wallet_unavailable when the wallet is down', async () => {
    const port = await freePort();
    const main = await startMainServer({ env: { WALLET_BACKEND_ORIGIN: `http://127.0.0.1:${port}` } });
    open.push(main);
    const res = await fetch(`${main.url}/wallet-harness/api/session`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: 'wallet_unavailable',
      error_description: 'The wallet harness does not answer',
    });
  });

  it('sends X-Forwarded-* and rewrites Location and cookie paths under the prefix', async () => {
    let seen: IncomingHttpHeaders = {};
    let seenUrl = '';
    const backend: Server = createServer((req, res) => {
      seen = req.headers;
      seenUrl = req.url!;
      res
        .writeHead(302, {
          location: '/consent/abc?x=1',
          'set-cookie': ['a=1; Path=/; HttpOnly', 'b=2'],
          'access-control-allow-origin': '*',
        })
        .end();
    });
    const port = await new Promise<number>((resolve) =>
      backend.listen(0, '127.0.0.1', () => resolve((backend.address() as { port: number }).port)),
    );
    const main = await startMainServer({ env: { WALLET_BACKEND_ORIGIN: `http://127.0.0.1:${port}` } });
    open.push(main, { close: () => new Promise<void>((r) => backend.close(() => r())) });
    const res = await fetch(`${main.url}/wallet-harness/authorize?client_id=x`, {
      redirect: 'manual',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(seenUrl).toBe('/authorize?client_id=x');
    expect(seen['x-forwarded-prefix']).toBe('/wallet-harness');
    expect(seen['x-forwarded-host']).toBe(new URL(main.url).host);
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-for']).toBe('127.0.0.1'); // the caller's own X-Forwarded-For is not believed without TRUST_PROXY
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/wallet-harness/consent/abc?x=1');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/wallet-harness/; HttpOnly', 'b=2; Path=/wallet-harness/']);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('rewrites absolute wallet URLs and leaves foreign ones alone', () => {
    const backend = new URL('http://wallet.internal:3001');
    expect(rewriteLocation('http://wallet.internal:3001/consent/1', backend, 'https://portico.example')).toBe(
      'https://portico.example/wallet-harness/consent/1',
    );
    expect(rewriteLocation('https://verifier.example/cb', backend, 'https://portico.example')).toBe(
      'https://verifier.example/cb',
    );
    expect(rewriteLocation('//evil.example/x', backend, 'https://portico.example')).toBe('//evil.example/x');
    expect(rewriteCookie('s=1; path=/api; Secure')).toBe('s=1; path=/wallet-harness/api; Secure');
  });
});
