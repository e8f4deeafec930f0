import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 16: the catalog's OID4VP flows run for real, the runner playing the holder with credentials from our issuer.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

describe('runnable OID4VP flows', () => {
  for (const [flow, options] of [
    ['dcql-direct-post', {}],
    ['dcql-direct-post', { credential: 'mdoc' }],
    ['dcql-direct-post-jwt', {}],
    ['dcql-direct-post-jwt', { credential: 'sd-jwt' }],
  ] as const) {
    it(`${flow} ${JSON.stringify(options)}: issuance, request object, response and a verified result, every hop recorded`, async () => {
      const res = await fetch(`${server.url}/api/protocols/oid4vp/demo/${flow}`, json(options));
      const run = (await res.json()) as {
        status: string;
        error?: string;
        exchanges: Array<{
          step: string;
          request: { url: string; body?: any };
          response: { status: number; body?: any };
        }>;
        tokens: Array<{ name: string; header: any; payload: any }>;
      };
      expect(run.status, run.error).toBe('succeeded');
      const steps = run.exchanges.map((e) => e.step);
      expect(steps).toContain('Verifier creates a presentation request');
      expect(steps).toContain('Wallet fetches the request object');
      const last = run.exchanges.at(-1)!;
      expect(last.response.body).toMatchObject({ status: 'verified', reasons: [] });
      const requestObject = run.tokens.find((t) => t.name === 'request_object');
      expect(requestObject?.header).toMatchObject({ typ: 'oauth-authz-req+jwt', x5c: expect.any(Array) });
      expect(requestObject?.payload).toMatchObject({
        aud: 'https://self-issued.me/v2',
        response_mode: flow === 'dcql-direct-post' ? 'direct_post' : 'direct_post.jwt',
      });
      const posted = run.exchanges.find((e) => e.request.url.endsWith('/oid4vp/response'))!;
      expect(Object.keys(posted.request.body)).toEqual(
        flow === 'dcql-direct-post' ? ['vp_token', 'state'] : ['response'],
      );
      const flows = (await (await fetch(`${server.url}/api/protocols/oid4vp/flows`)).json()) as {
        flows: Array<{ id: string; executable: boolean }>;
      };
      expect(flows.flows.find((f) => f.id === flow)?.executable).toBe(true);
    });
  }
});
