import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 30, main origin items 20 and 22-24: each test failed before its fix (item 21 is in test/interop/mcp).
let server: TestServer;
let limited: TestServer;
beforeAll(async () => {
  [server, limited] = await Promise.all([startMainServer(), startMainServer({ env: { RATE_LIMIT_PER_MINUTE: '3' } })]);
});
afterAll(async () => {
  await Promise.all([server.close(), limited.close()]);
});

const DISCOVERY_DOCUMENTS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-authorization-server/agentauth',
  '/.well-known/oauth-authorization-server/oid4vci',
  '/.well-known/oauth-authorization-server/oid4vp/verifier-attestation',
  '/.well-known/openid-configuration',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/oidc/userinfo',
  '/.well-known/oauth-protected-resource/oauth2/resource',
  '/.well-known/openid-credential-issuer/oid4vci',
  '/oid4vci/.well-known/openid-credential-issuer',
  '/oid4vci/.well-known/oauth-authorization-server',
  '/.well-known/api-catalog',
  '/.well-known/agent-skills/index.json',
  '/.well-known/agent-skills/register-agent/SKILL.md',
  '/.well-known/ai-catalog.json',
  '/mcp/server-card',
  '/agentauth/jwks',
  '/oauth2/jwks',
  '/oidc/jwks',
  '/oid4vci/.well-known/jwks.json',
  '/oid4vp/verifier-attestation/jwks.json',
  '/llms.txt',
  '/openapi.json',
];

/** One raw HTTP/1.1 exchange, for requests fetch will not send (no Host, two Hosts, an odd Expect). */
function raw(url: string, head: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [headers, body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body });
    });
    socket.setTimeout(5_000, () => socket.destroy());
  });
}

describe('discovery documents are readable cross-origin (item 20)', () => {
  it('[item 20] every discovery document answers the preflight with 204 and GET with Access-Control-Allow-Origin: *', async () => {
    for (const path of DISCOVERY_DOCUMENTS) {
      const preflight = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(preflight.headers.get('access-control-allow-methods'), path).toContain('GET');
      const get = await fetch(`${server.url}${path}`, { headers: { origin: 'https://agent.example' } });
      expect(get.status, path).toBe(200);
      expect(get.headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  it('[item 20] API routes get no CORS header, and discovery documents are never rate limited', async () => {
    expect(
      (await fetch(`${server.url}/api/protocols`, { headers: { origin: 'https://agent.example' } })).headers.get(
        'access-control-allow-origin',
      ),
    ).toBeNull();
    for (let i = 0; i < 6; i++) expect((await fetch(`${limited.url}/oid4vci/.well-known/jwks.json`)).status).toBe(200);
  });
});

describe('rate limit answers and counts (items 22 and 23)', () => {
  it('[item 22] a percent-encoded API path over the limit is answered in JSON, like the decoded path', async () => {
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await fetch(`${limited.url}/%61pi/protocols`));
    const over = answers.find((r) => r.status === 429);
    expect(over).toBeDefined();
    expect(over!.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await over!.json()).toMatchObject({ error: 'rate_limited' });
    // A 404 of an encoded API path is JSON too.
    const missing = await fetch(`${server.url}/%61pi/no-such-thing`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('[item 23] POST /looking-glass counts against the limit; GET stays free', async () => {
    const once = await startMainServer({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const post = () =>
        fetch(`${once.url}/looking-glass`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'token=abc',
        });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await post()).status);
      expect(statuses.slice(2)).toEqual([429, 429]);
      // The same budget as the API: /api is over it as well.
      expect((await fetch(`${once.url}/api/protocols`)).status).toBe(429);
      expect((await fetch(`${once.url}/looking-glass`)).status).toBe(200);
    } finally {
      await once.close();
    }
  });
});

describe('HTTP framing errors keep the error contract (item 24)', () => {
  it('[item 24] no Host header: 400 JSON', async () => {
    const res = await raw(server.url, 'GET /api/protocols HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('Host'),
    });
  });

  it('[item 24] two Host headers: 400 JSON', async () => {
    const host = new URL(server.url).host;
    const res = await raw(
      server.url,
      `GET /api/protocols HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('more than one Host'),
    });
  });

  it('[item 24] an unknown Expect: 417 JSON; HTTP/1.0 without Host and one Host still work', async () => {
    const host = new URL(server.url).host;
    const res = await raw(
      server.url,
      `POST /api/lookingglass/decode HTTP/1.1\r\nHost: ${host}\r\nExpect: something-else\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    expect(res.status).toBe(417);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' });
    expect((await raw(server.url, 'GET /health HTTP/1.0\r\n\r\n')).status).toBe(200);
    expect((await raw(server.url, `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).status).toBe(
      200,
    );
  });
});
