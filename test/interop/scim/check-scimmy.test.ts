import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { startScimmyServer } from '../../support/scimmy-server.ts';

// Issue 48: scim/check-server against a SCIM service provider nobody here wrote (SCIMMY with its express
// routers, on loopback through the outbound guard's test hook). Every verdict is compared with what that
// server really does, probed here directly, and each failure is explained.
const TOKEN = 'scimmy-test-token';
let portico: TestServer;
let scimmy: Awaited<ReturnType<typeof startScimmyServer>>;
let checks: Map<string, { verdict: string; rule: string; detail: string }>;
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/scim+json' };

beforeAll(async () => {
  scimmy = await startScimmyServer(TOKEN);
  portico = await startMainServer({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  const res = await fetch(
    `${portico.url}/api/protocols/scim/demo/check-server`,
    json({ target: { base_url: scimmy.base, token: TOKEN } }),
  );
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(201);
  checks = new Map(body.checks.map((c: any) => [c.check, c]));
}, 60_000);
afterAll(async () => {
  await portico.close();
  await scimmy.close();
});

const verdictOf = (name: string) => checks.get(name)?.verdict;

describe('scim/check-server against SCIMMY', () => {
  it('passes what SCIMMY does right', () => {
    for (const name of [
      'service provider configuration',
      'resource types',
      'schemas',
      'read back',
      'media type',
      'uniqueness',
      'filter eq',
      'filter case',
      'patch replace',
      'patch value path',
      'patch remove',
      'error shape',
      'delete',
    ])
      expect(verdictOf(name), `${name}: ${checks.get(name)?.detail}`).toBe('passed');
  });

  it('fails create: SCIMMY sends no Location header, and a relative meta.location (RFC 7644 §3.3)', async () => {
    expect(verdictOf('create')).toBe('failed');
    expect(checks.get('create')!.detail).toMatch(/Location header/);
    const made = await fetch(`${scimmy.base}/Users`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ schemas: [USER], userName: 'probe.create' }),
    });
    expect(made.status).toBe(201);
    expect(made.headers.get('location')).toBeNull();
    expect(((await made.json()) as any).meta.location).toMatch(/^\/scim\/Users\//);
  });

  it('fails invalid filter: SCIMMY answers a filter cut short with 200 and every user (RFC 7644 §3.4.2.2 wants 400 invalidFilter)', async () => {
    expect(verdictOf('invalid filter')).toBe('failed');
    const answer = await fetch(`${scimmy.base}/Users?filter=${encodeURIComponent('userName eq')}`, { headers });
    expect(answer.status).toBe(200);
  });

  it('fails index pagination: SCIMMY, with its handlers answering every user, ignores startIndex and count (RFC 7644 §3.4.2.4)', async () => {
    expect(verdictOf('index pagination')).toBe('failed');
    for (const userName of ['probe.page.a', 'probe.page.b'])
      await fetch(`${scimmy.base}/Users`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ schemas: [USER], userName }),
      });
    const page = (await (await fetch(`${scimmy.base}/Users?startIndex=2&count=1`, { headers })).json()) as any;
    expect(page.startIndex).toBe(1);
    expect(page.Resources.length).toBeGreaterThan(1);
  });

  it('says not_applicable where SCIMMY says it lacks the feature', async () => {
    const config = (await (await fetch(`${scimmy.base}/ServiceProviderConfig`, { headers })).json()) as any;
    expect(config.etag.supported).toBe(false);
    expect(verdictOf('versions')).toBe('not_applicable');
    expect(config.pagination?.cursor).not.toBe(true);
    expect(verdictOf('cursor pagination')).toBe('not_applicable');
  });

  it('judged every check it ran, each with its RFC section', () => {
    expect(checks.size).toBe(18);
    for (const c of checks.values()) expect(c.rule).toMatch(/^RFC (7643|7644|9865) §/);
  });
});
