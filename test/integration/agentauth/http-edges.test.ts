import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const expectOAuthError = async (res: Response, status?: number) => {
  const body = await res.json();
  if (status !== undefined) expect(res.status).toBe(status);
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(typeof body.error).toBe('string');
  expect(typeof body.error_description).toBe('string');
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(res.headers.get('retry-after')).toBeNull();
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  return body;
};

describe('HTTP edges of the main origin', () => {
  it('unknown API path is a JSON 404; known path with another method is 405 with Allow', async () => {
    expect((await expectOAuthError(await fetch(`${server.url}/api/nothing-here`), 404)).error).toBe('not_found');
    const res = await fetch(`${server.url}/agentauth/identity`);
    expect(res.headers.get('allow')).toContain('POST');
    expect((await expectOAuthError(res, 405)).error).toBe('method_not_allowed');
  });

  it('malformed JSON, wrong content type and oversized bodies get the error shape', async () => {
    await expectOAuthError(
      await fetch(`${server.url}/agentauth/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"type":',
      }),
      400,
    );
    await expectOAuthError(
      await fetch(`${server.url}/agentauth/identity`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'anonymous',
      }),
      400,
    );
    await expectOAuthError(
      await fetch(`${server.url}/agentauth/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/xml' },
        body: '<type/>',
      }),
      415,
    );
    const big = json({ type: 'anonymous', pad: 'x'.repeat(70 * 1024) });
    expect((await expectOAuthError(await fetch(`${server.url}/agentauth/identity`, big), 413)).error).toBe(
      'invalid_request',
    );
    await expectOAuthError(
      await fetch(`${server.url}/agentauth/token`, form({ grant_type: 'a', extra: 'y'.repeat(70 * 1024) })),
      413,
    );
  });

  it('a repeated form parameter is refused (RFC 6749 section 3.2)', async () => {
    const body =
      'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&grant_type=client_credentials&assertion=x';
    await expectOAuthError(
      await fetch(`${server.url}/agentauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }),
      400,
    );
  });

  it('fuzzed JSON bodies and forms never produce a 5xx and always the error shape', async () => {
    const jsonValue = fc.jsonValue({ maxDepth: 3 });
    const paths = ['/agentauth/identity', '/agentauth/identity/claim', '/agentauth/events/poll'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), jsonValue, async (path, value) => {
        const res = await fetch(server.url + path, json(value));
        if (res.status < 400) return; // a lucky valid registration
        await expectOAuthError(res);
      }),
      { numRuns: 150 },
    );

    const field = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
        'urn:portico:agent-auth:grant-type:claim',
        'eyJhbGciOiJub25lIn0.e30.',
        '',
      ),
    );
    const formBody = fc.dictionary(
      fc.constantFrom('grant_type', 'assertion', 'claim_token', 'token', 'user_code', 'decision', 'scope', 'x'),
      field,
      { maxKeys: 5 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/agentauth/token', '/agentauth/revoke'), formBody, async (path, body) => {
        const res = await fetch(server.url + path, form(body));
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) await expectOAuthError(res);
      }),
      { numRuns: 150 },
    );

    // Raw bytes with a JSON content type: parse errors, never a crash.
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), async (raw) => {
        const res = await fetch(`${server.url}/agentauth/identity`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: raw,
        });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) await expectOAuthError(res);
      }),
      { numRuns: 100 },
    );
  });

  it('the claim page rejects fuzzed forms with a 400 page, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), fc.string({ maxLength: 10 }), async (user_code, decision) => {
        const res = await fetch(`${server.url}/agentauth/claim`, form({ user_code, decision }));
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toContain('text/html');
        // Only the page's own module script; the input is never reflected as markup.
        expect((await res.text()).match(/<script/g)).toEqual(['<script']);
      }),
      { numRuns: 60 },
    );
  });
});

describe('rate limit', () => {
  it('answers 429 rate_limited past the per-minute budget on API paths, never on /health or discovery', async () => {
    const limited = await startMainServer({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await fetch(`${limited.url}/api`)).status);
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      const over = await fetch(`${limited.url}/agentauth/identity`, json({ type: 'anonymous' }));
      const body = await expectOAuthError(over, 429);
      expect(body.error).toBe('rate_limited');
      for (let i = 0; i < 7; i++) expect((await fetch(`${limited.url}/health`)).status).toBe(200);
      expect((await fetch(`${limited.url}/.well-known/oauth-authorization-server/agentauth`)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
