import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { scimToken } from '../../support/scim.ts';

// Issue 48: the catalog's SCIM flows run for real over HTTP, and scim/check-server holds our own service
// provider to every check, by default and as a target through the outbound guard.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(() => server.close());

const run = async (flow: string, options: Record<string, unknown> = {}) => {
  const res = await fetch(`${server.url}/api/protocols/scim/demo/${flow}`, json(options));
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(201);
  return body;
};

describe('SCIM flows of the catalog', () => {
  it.each(['provision', 'group-membership', 'deprovision-and-signal', 'bulk'])('%s succeeds', async (flow) => {
    const body = await run(flow);
    expect(body.status, body.error).toBe('succeeded');
    expect(body.exchanges.length).toBeGreaterThan(2);
    expect(body.exchanges.every((x: any) => x.response.status < 500)).toBe(true);
  });

  it('check-server passes every check against our own service provider, each with its RFC section', async () => {
    const body = await run('check-server');
    expect(body.status, body.error).toBe('succeeded');
    const checks = body.checks as Array<{ check: string; verdict: string; rule: string; detail: string }>;
    expect(checks.map((c) => c.check)).toEqual([
      'service provider configuration',
      'resource types',
      'schemas',
      'create',
      'read back',
      'media type',
      'uniqueness',
      'filter eq',
      'filter case',
      'invalid filter',
      'patch replace',
      'patch value path',
      'patch remove',
      'versions',
      'index pagination',
      'cursor pagination',
      'error shape',
      'delete',
    ]);
    for (const c of checks) {
      expect(c.verdict, `${c.check}: ${c.detail}`).toBe('passed');
      expect(c.rule).toMatch(/^RFC (7643|7644|9865) §/);
    }
    const recorded = await (await fetch(`${server.url}/api/runs/${body.run_id}`)).json();
    expect(recorded.checks).toHaveLength(checks.length);
  });

  it('check-server takes our service provider as a target ({base_url, token}) and keeps the token out of the record', async () => {
    const token = await scimToken(server);
    const started = await fetch(
      `${server.url}/api/protocols/scim/demo/check-server`,
      json({ target: { base_url: `${server.url}/scim/v2`, token } }),
    );
    const body = (await started.json()) as any;
    expect(started.status, JSON.stringify(body).slice(0, 300)).toBe(201);
    expect(body.status, body.error).toBe('succeeded');
    expect(body.checks.every((c: any) => c.verdict === 'passed')).toBe(true);
    expect(body.target).toEqual({ base_url: `${server.url}/scim/v2` });
    const exported = await (
      await fetch(`${server.url}/api/streams/run:${body.run_id}/export`, {
        headers: { authorization: `Bearer ${body.run_token}` },
      })
    ).text();
    expect(exported).not.toContain(token);
    expect(exported).toContain('run.check_recorded');
  });

  it('refuses a target that is not {base_url, token}, and one the outbound guard refuses', async () => {
    for (const target of [
      { base_url: 'ftp://x.example/scim' },
      { token: 't' },
      { base_url: 'https://x.example/?q=1', token: 't' },
    ]) {
      const res = await fetch(`${server.url}/api/protocols/scim/demo/check-server`, json({ target }));
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toBe('invalid_request');
    }
    const guarded = await fetch(
      `${server.url}/api/protocols/scim/demo/check-server`,
      json({ target: { base_url: 'https://printer.local/scim/v2', token: 't' } }),
    );
    expect(guarded.status).toBe(400);
    expect(((await guarded.json()) as any).error).toBe('destination_not_allowed');
    const notTargetable = await fetch(
      `${server.url}/api/protocols/scim/demo/provision`,
      json({ target: { base_url: `${server.url}/scim/v2`, token: 't' } }),
    );
    expect(notTargetable.status).toBe(400);
  });
});
