import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

// Streams stay open by design; they are exercised by their own tests.
const STREAMING = new Set(['GET /agentauth/events', 'GET /api/runs/{id}/events']);
const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, encodeURIComponent(value));

describe('every route of the main origin', () => {
  it('answers fuzzed paths, queries and bodies without a 5xx, with the JSON error shape on API errors', async () => {
    const routes = server.main.routes.filter((r) => !STREAMING.has(r));
    expect(routes.length).toBeGreaterThan(60);
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).map((v) => ({ type: 'application/json', text: JSON.stringify(v) })),
      fc
        .dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 30 }), { maxKeys: 4 })
        .map((d) => ({ type: 'application/x-www-form-urlencoded', text: new URLSearchParams(d).toString() })),
      fc.string({ maxLength: 40 }).map((t) => ({ type: 'application/json', text: t })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.string({ maxLength: 20 }),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
        body,
        async (route, segment, query, b) => {
          const [method, path] = route.split(' ');
          const qs = new URLSearchParams(query).toString();
          const url = `${server.url}${fill(path, segment || 'x')}${qs ? `?${qs}` : ''}`;
          const init: RequestInit = { method, redirect: 'manual', headers: { accept: 'application/json' } };
          if (method === 'POST')
            Object.assign(init, {
              headers: { 'content-type': b.type, accept: 'application/json, text/event-stream' },
              body: b.text,
            });
          const res = await fetch(url, init);
          const text = await res.text();
          expect(res.status, `${route} -> ${res.status} ${text.slice(0, 200)}`).toBeLessThan(500);
          if (
            res.status >= 400 &&
            (res.headers.get('content-type') ?? '').includes('application/json') &&
            !path.startsWith('/mcp')
          ) {
            const parsed = JSON.parse(text);
            expect(typeof parsed.error, route).toBe('string');
          }
          expect(text).not.toMatch(/\n\s+at .+\.(ts|js):\d+/);
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);
});
