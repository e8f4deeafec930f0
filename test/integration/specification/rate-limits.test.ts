import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSIONS_ON, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 45 items 7 and 36: every open API counts against RATE_LIMIT_PER_MINUTE, Shared Signals and the
// pages that compute from a whole run included; the RFC 8935 push target and discovery stay free.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
});
afterAll(() => server.close());

/** The statuses of `n` calls from one address. */
const statuses = async (n: number, call: () => Promise<Response>) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call()).status);
  return out;
};

describe('rate limits on every open API', () => {
  it('POST /ssf/receivers and GET /ssf/receivers/{id} share the per-address limit; the fourth call is 429', async () => {
    const created = await fetch(`${server.url}/ssf/receivers`, json({ audience: 'rp' }));
    expect(created.status).toBe(201);
    const { receiver_id: id } = (await created.json()) as { receiver_id: string };
    const seen = await statuses(3, () =>
      fetch(`${server.url}/ssf/receivers/${id}`, { headers: { accept: 'application/json' } }),
    );
    expect(seen).toEqual([200, 200, 429]);
    const refused = await fetch(`${server.url}/ssf/receivers`, json({ audience: 'rp' }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(((await refused.json()) as { error: string }).error).toBe('rate_limited');
    // Discovery stays free.
    expect((await fetch(`${server.url}/.well-known/ssf-configuration`)).status).toBe(200);
  });

  it('the run page, the diff page, the time-travel page and the run token form count too', async () => {
    const fresh = await startMainServer({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const seen = await statuses(3, () => fetch(`${fresh.url}/runs/no-such-run`));
      expect(seen[2]).toBe(429);
      expect((await fetch(`${fresh.url}/runs/a/diff/b`)).status).toBe(429);
      expect((await fetch(`${fresh.url}/streams/run:abc`)).status).toBe(429);
      expect((await fetch(`${fresh.url}/runs/abc/token`, { method: 'POST' })).status).toBe(429);
    } finally {
      await fresh.close();
    }
  });

  it("a flow run's own client registrations count against the address that started it", async () => {
    const fresh = await startMainServer({
      env: { ...EXTENSIONS_ON, REGISTRATIONS_PER_HOUR: '2', RATE_LIMIT_PER_MINUTE: '1000' },
    });
    try {
      const run = async () =>
        (await (
          await fetch(`${fresh.url}/api/protocols/mcp/demo/authorization`, json({ registration: 'dcr' }))
        ).json()) as {
          status: string;
          exchanges: Array<{ step: string; response: { status: number } }>;
        };
      expect((await run()).status).toBe('succeeded');
      expect((await run()).status).toBe('succeeded');
      // The third run's registration is over the limit: the run fails on a 429, as a direct registration does.
      const third = await run();
      expect(third.status).toBe('failed');
      expect(third.exchanges.at(-1)!.response.status).toBe(429);
      const direct = await fetch(
        `${fresh.url}/oauth2/register`,
        json({ redirect_uris: ['https://rp.example/cb'], token_endpoint_auth_method: 'none' }),
      );
      expect(direct.status).toBe(429);
    } finally {
      await fresh.close();
    }
  });

  it('the Shared Signals API counts per client too: one client from many addresses is limited', async () => {
    const fresh = await startMainServer({ env: { RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1' } });
    try {
      const token = await ssfToken(fresh);
      const from = (address: string) =>
        fetch(`${fresh.url}/ssf/streams`, {
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
        });
      const seen = [];
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4'])
        seen.push(await from(address));
      expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      const refused = (await seen[3]!.json()) as { error: string; error_description: string };
      expect(refused.error).toBe('rate_limited');
      expect(refused.error_description).toMatch(/from this client/);
      expect(seen[3]!.headers.get('retry-after')).toBeNull();
    } finally {
      await fresh.close();
    }
  });
});
