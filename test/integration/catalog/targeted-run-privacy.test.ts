import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 45 item 35: a run against a learner's own server shows that server's real tokens, so it is
// readable only with its run_token (page, API, events, export, HAR, diff, MCP), and never listed.
type Json = Record<string, any>;
let server: TestServer;
let targeted: Json;
let publicRun: Json;
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

beforeAll(async () => {
  server = await startMainServer();
  // The deployment's own OAuth server is always an admitted target (its BASE_URL origin).
  const ran = await exchange(
    server.url,
    '/api/protocols/oauth2/demo/client-credentials',
    json({
      target: {
        issuer: `${server.url}/oauth2`,
        client_id: 'machine-client',
        client_secret: 'machine-client-secret',
        scope: 'api:read',
      },
    }),
  );
  expect(ran.status, JSON.stringify(ran.body).slice(0, 300)).toBe(201);
  targeted = ran.body;
  publicRun = (await exchange(server.url, '/api/protocols/oauth2/demo/client-credentials', json({}))).body;
});
afterAll(() => server.close());

describe('a targeted run is private', () => {
  it('its start answers a run_token, once; a catalog run in run mode has none', () => {
    expect(targeted.status).toBe('succeeded');
    expect(targeted.run_token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(publicRun.run_token).toBeUndefined();
  });

  it('without the token every read is 404 as for an unknown run; with it, 200', async () => {
    const id = targeted.run_id;
    const paths = [
      `/api/runs/${id}`,
      `/api/runs/${id}/har`,
      `/api/streams/run:${id}/export`,
      `/api/runs/${id}/diff/${publicRun.run_id}`,
      `/api/runs/${publicRun.run_id}/diff/${id}`,
      `/runs/${id}`,
      `/runs/${id}/diff/${publicRun.run_id}`,
      `/streams/run:${id}`,
    ];
    for (const path of paths) {
      const anonymous = await fetch(`${server.url}${path}`, { headers: { accept: 'application/json' } });
      expect(anonymous.status, path).toBe(404);
      const wrong = await fetch(`${server.url}${path}`, bearer('not-the-run-token'));
      expect(wrong.status, path).toBe(404);
      const own = await fetch(`${server.url}${path}`, bearer(targeted.run_token));
      expect(own.status, path).toBe(200);
      await own.arrayBuffer();
    }
    const unknown = await exchange(server.url, '/api/runs/no-such-run', {});
    const hidden = await exchange(server.url, `/api/runs/${id}`, {});
    expect(hidden.body).toEqual(unknown.body);
    // The event stream too.
    expect((await fetch(`${server.url}/api/runs/${id}/events`)).status).toBe(404);
    const events = await fetch(`${server.url}/api/runs/${id}/events`, bearer(targeted.run_token));
    expect([events.status, events.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(await events.text()).toContain('event: run.finished');
    // Another run's token does not open it: the token is this run's.
    const other = await exchange(
      server.url,
      '/api/protocols/oauth2/demo/client-credentials',
      json({
        target: { issuer: `${server.url}/oauth2`, client_id: 'machine-client', client_secret: 'machine-client-secret' },
      }),
    );
    expect((await fetch(`${server.url}/api/runs/${id}`, bearer(other.body.run_token))).status).toBe(404);
  });

  it('a public run stays readable by anyone', async () => {
    expect((await fetch(`${server.url}/api/runs/${publicRun.run_id}`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/runs/${publicRun.run_id}/har`)).status).toBe(200);
  });

  it('the run list never names it', async () => {
    const listed = (await exchange(server.url, '/api/runs?limit=100', {})).body.runs.map((r: Json) => r.run_id);
    expect(listed).toContain(publicRun.run_id);
    expect(listed).not.toContain(targeted.run_id);
    expect(await (await fetch(`${server.url}/runs`)).text()).not.toContain(targeted.run_id);
  });

  it('a browser opens it with the token form, which sets a cookie for that run', async () => {
    const id = targeted.run_id;
    const page = await fetch(`${server.url}/runs/${id}`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain(`action="/runs/${id}/token"`);
    const refused = await fetch(`${server.url}/runs/${id}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'run_token=wrong',
      redirect: 'manual',
    });
    expect([refused.status, refused.headers.get('set-cookie')]).toEqual([404, null]);
    const opened = await fetch(`${server.url}/runs/${id}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `run_token=${targeted.run_token}`,
      redirect: 'manual',
    });
    expect([opened.status, opened.headers.get('location')]).toEqual([303, `/runs/${id}`]);
    const cookie = opened.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict/);
    const asBrowser = { headers: { cookie: cookie.split(';')[0]! } };
    expect((await fetch(`${server.url}/runs/${id}`, asBrowser)).status).toBe(200);
    expect((await fetch(`${server.url}/api/runs/${id}/har?download=1`, asBrowser)).status).toBe(200);
  });

  it('over MCP, export_stream and diff_runs read it only with runToken', async () => {
    const client = new Client({ name: 'privacy-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const streamId = `run:${targeted.run_id}`;
      const hidden = await client.callTool({ name: 'export_stream', arguments: { streamId } });
      expect([hidden.isError, (hidden.content as Json[])[0].text]).toEqual([true, expect.stringMatching(/^not_found/)]);
      const shown = await client.callTool({
        name: 'export_stream',
        arguments: { streamId, runToken: targeted.run_token },
      });
      expect(shown.structuredContent).toMatchObject({ stream: streamId, final_state: 'succeeded' });
      const pair = { a: publicRun.run_id, b: targeted.run_id };
      expect((await client.callTool({ name: 'diff_runs', arguments: pair })).isError).toBe(true);
      const diff = await client.callTool({
        name: 'diff_runs',
        arguments: { ...pair, runTokenB: targeted.run_token },
      });
      expect(diff.structuredContent).toMatchObject({ same_flow: true });
    } finally {
      await client.close();
    }
  });
});
