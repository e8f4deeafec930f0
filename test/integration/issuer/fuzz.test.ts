import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 15: fuzzed bodies, queries and headers on every issuer endpoint: never a 5xx, always the error shape.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

describe('every issuer endpoint under fuzzed input', () => {
  it('never answers a 5xx, and API errors are {error, error_description}', async () => {
    const routes = server.main.routes.filter((r) => r.includes('/oid4vci'));
    expect(routes.length).toBeGreaterThan(15);
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((v) => ({ type: 'application/json', text: JSON.stringify(v) })),
      fc
        .dictionary(
          fc.constantFrom(
            'grant_type',
            'pre-authorized_code',
            'tx_code',
            'code',
            'client_id',
            'redirect_uri',
            'code_challenge',
            'code_challenge_method',
            'authorization_details',
            'scope',
            'issuer_state',
            'response_type',
            'x',
          ),
          fc.string({ maxLength: 40 }),
          { maxKeys: 6 },
        )
        .map((d) => ({ type: 'application/x-www-form-urlencoded', text: new URLSearchParams(d).toString() })),
      fc.string({ maxLength: 80 }).map((t) => ({ type: 'application/jwt', text: t })),
    );
    const headers = fc.record({
      authorization: fc.constantFrom(undefined, 'Bearer x', 'DPoP a.b.c', 'Basic zz'),
      dpop: fc.constantFrom(undefined, 'a.b.c', 'eyJhbGciOiJub25lIn0.e30.'),
      'oauth-client-attestation': fc.constantFrom(undefined, 'a.b.c'),
      'oauth-client-attestation-pop': fc.constantFrom(undefined, 'x'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.string({ maxLength: 30 }),
        body,
        headers,
        async (route, segment, b, h) => {
          const [method, path] = route.split(' ');
          const url = `${server.url}${path.replace(/\{[^}]+\}/g, encodeURIComponent(segment || 'x'))}`;
          const sent: Record<string, string> = Object.fromEntries(
            Object.entries(h).filter(([, v]) => v !== undefined),
          ) as Record<string, string>;
          const res = await fetch(url, {
            method,
            redirect: 'manual',
            headers: { accept: 'application/json', ...sent, ...(method === 'POST' ? { 'content-type': b.type } : {}) },
            ...(method === 'POST' ? { body: b.text } : {}),
          });
          const text = await res.text();
          expect(res.status, `${route} -> ${res.status} ${text.slice(0, 200)}`).toBeLessThan(500);
          if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('application/json'))
            expect(typeof JSON.parse(text).error).toBe('string');
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);
});
