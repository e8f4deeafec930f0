import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedHttp } from '../../../adapters/outbound/guarded-http.ts';
import { OAuthError } from '../../../services/errors.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 45 items 17 and 28: targeting a server on this machine is discoverable and works with the hook;
// the deployment's own origin is always a flow target.
let local: Server;
let port = 0;
beforeAll(async () => {
  local = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', () => resolve()));
  port = (local.address() as { port: number }).port;
});
afterAll(() => new Promise((r) => local.close(r)));

const refusalOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as OAuthError,
  );

describe('the outbound guard and servers on this machine', () => {
  it('without the hook, the refusal of a loopback or localhost target names OUTBOUND_ALLOW_LOOPBACK', async () => {
    const guard = new GuardedHttp({ trustedOrigins: new Set(), allowExternal: true });
    for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`, `https://localhost:${port}/`]) {
      const refusal = await refusalOf(guard.send(url));
      expect(refusal?.error, url).toBe('destination_not_allowed');
      expect(refusal?.description, url).toMatch(/OUTBOUND_ALLOW_LOOPBACK/);
    }
    await guard.close();
  });

  it('with the hook, localhost counts as loopback like 127.0.0.1', async () => {
    const guard = new GuardedHttp({ trustedOrigins: new Set(), allowExternal: true, allowLoopback: true });
    const answer = await guard.send(`http://localhost:${port}/`);
    expect(answer.status).toBe(200);
    await guard.vet(`http://localhost:${port}/`);
    // Other private destinations stay refused under the hook.
    expect((await refusalOf(guard.send('http://10.0.0.1/')))?.error).toBe('destination_not_allowed');
    await guard.close();
  });
});

describe('a flow run against the deployment itself', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startMainServer({ baseHost: 'localhost' });
  });
  afterAll(() => server.close());

  it('is admitted with the default settings (no hook), BASE_URL on localhost', async () => {
    const res = await exchange(
      server.url,
      '/api/protocols/oauth2/demo/client-credentials',
      json({
        target: { issuer: `${server.url}/oauth2`, client_id: 'machine-client', client_secret: 'machine-client-secret' },
      }),
    );
    expect(res.body.error, JSON.stringify(res.body)).toBeUndefined();
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('succeeded');
  });

  // Issue 45 item 28: the flow page and the skill say how to target your own server, a local one included,
  // and the flow page's example (this deployment as the target) runs as it is.
  it('the flow page and the run skill say how; the page example runs', async () => {
    const page = await (
      await fetch(`${server.url}/protocol/oauth2/flow/client-credentials`, { headers: { accept: 'text/markdown' } })
    ).text();
    expect(page).toContain('### Against your own server');
    expect(page).toContain('OUTBOUND_ALLOW_LOOPBACK=true');
    const example = /-d '(\{.*\})'/.exec(page)?.[1];
    const ran = await exchange(server.url, '/api/protocols/oauth2/demo/client-credentials', json(JSON.parse(example!)));
    expect([ran.status, ran.body.status]).toEqual([201, 'succeeded']);
    const codeFlow = await (
      await fetch(`${server.url}/protocol/oauth2/flow/authorization-code-pkce`, {
        headers: { accept: 'text/markdown' },
      })
    ).text();
    expect(codeFlow).toContain('"client_id":"demo-app"');
    const plain = await (
      await fetch(`${server.url}/protocol/agentauth/flow/register-and-claim`, { headers: { accept: 'text/markdown' } })
    ).text();
    expect(plain).not.toContain('Against your own server');
    const skill = await (await fetch(`${server.url}/.well-known/agent-skills/run-protocol-flow/SKILL.md`)).text();
    expect(skill).toContain('## Against your own authorization server');
    expect(skill).toContain('OUTBOUND_ALLOW_LOOPBACK=true');
    expect(skill).toContain(`${server.url}/oauth2`);
  });
});
