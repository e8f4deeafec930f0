import Database from 'better-sqlite3';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 13 item 14.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

describe('issue 13 item 14', () => {
  it('/mcp refuses bodies over 64 KiB with the JSON error shape', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(70 * 1024) } });
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('user codes are kept as an HMAC under a server secret, not a hash anyone can reverse from the log', async () => {
    const reg = (await (await fetch(`${server.url}/agentauth/identity`, json({ type: 'anonymous' }))).json()) as {
      agent_id: string;
      claim_token: string;
    };
    const claim = (await (
      await fetch(
        `${server.url}/agentauth/identity/claim`,
        json({ claim_token: reg.claim_token, email: 'p@example.com' }),
      )
    ).json()) as { user_code: string };
    const normalized = claim.user_code.replace('-', '');
    const rows = new Database(join(server.dataDir, 'main.db'), { readonly: true })
      .prepare('SELECT data FROM events WHERE stream_id = ?')
      .all(`agent:${reg.agent_id}`) as Array<{ data: string }>;
    const stored = rows
      .map((r) => JSON.parse(r.data) as { userCodeHash?: string })
      .find((d) => d.userCodeHash)!.userCodeHash!;
    const sha = (v: string) => createHash('sha256').update(v).digest('base64url');
    for (const guess of [sha(normalized), sha(`user-code:${normalized}`), sha(claim.user_code)])
      expect(stored).not.toBe(guess);
    // The key lives in keys.json (0600), not in the log.
    const keys = JSON.parse(readFileSync(join(server.dataDir, 'keys.json'), 'utf8')) as Record<
      string,
      Array<{ k: string }>
    >;
    const secret = Buffer.from(keys['secret:user-code'][0].k, 'base64url');
    expect(secret.length).toBe(32);
    expect(stored).toBe(createHmac('sha256', secret).update(normalized).digest('base64url'));
    expect(statSync(join(server.dataDir, 'keys.json')).mode & 0o777).toBe(0o600);
    // The person can still approve with the code as typed.
    const page = await fetch(`${server.url}/agentauth/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ user_code: ` ${claim.user_code.toLowerCase()} `, decision: 'approve' }).toString(),
    });
    expect(page.status).toBe(200);
  });
});
