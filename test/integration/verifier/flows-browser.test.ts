import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 47: the DC API and transaction-data flows run end to end, every hop captured.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

type Run = {
  status: string;
  error?: string;
  exchanges: Array<{ step: string; request: { url: string; body?: any }; response: { status: number; body?: any } }>;
};
const run = async (flow: string, options: Record<string, unknown> = {}) =>
  (await (await fetch(`${server.url}/api/protocols/oid4vp/demo/${flow}`, json(options))).json()) as Run;

describe('runnable OID4VP flows of the DC API and transaction data', () => {
  for (const [flow, options, encrypted] of [
    ['dc-api', {}, false],
    ['dc-api', { credential: 'mdoc' }, false],
    ['dc-api-signed', {}, true],
    ['dc-api-signed', { credential: 'sd-jwt' }, true],
  ] as const)
    it(`${flow} ${JSON.stringify(options)}: the digital argument, the origin-bound answer, a verified result`, async () => {
      const done = await run(flow, options);
      expect(done.status, done.error).toBe('succeeded');
      const created = done.exchanges.find((e) => e.step === 'Verifier creates a Digital Credentials API request')!;
      expect(created.response.body.digital.requests[0].protocol).toBe(
        encrypted ? 'openid4vp-v1-signed' : 'openid4vp-v1-unsigned',
      );
      const posted = done.exchanges.find((e) => e.request.url.includes('/oid4vp/dc-api/'))!;
      expect(posted.request.body.origin).toBe(new URL(server.url).origin);
      expect(Object.keys(posted.request.body.data)).toEqual([encrypted ? 'response' : 'vp_token']);
      expect(done.exchanges.at(-1)!.response.body).toMatchObject({
        status: 'verified',
        origin: new URL(server.url).origin,
      });
    });

  it('transaction-data: the payment travels base64url-encoded, its hash in the KB-JWT is checked', async () => {
    const done = await run('transaction-data');
    expect(done.status, done.error).toBe('succeeded');
    const created = done.exchanges.find((e) => e.step === 'Verifier creates a request with a payment to authorize')!;
    expect(created.response.body.transaction_data).toHaveLength(1);
    const result = done.exchanges.at(-1)!.response.body;
    expect(result.status).toBe('verified');
    expect(result.checks).toContainEqual({ check: 'transaction_data', verdict: 'passed' });
  });

  it('the three flows are listed as executable', async () => {
    const { flows } = (await (await fetch(`${server.url}/api/protocols/oid4vp/flows`)).json()) as {
      flows: Array<{ id: string; executable: boolean }>;
    };
    for (const id of ['dc-api', 'dc-api-signed', 'transaction-data'])
      expect(flows.find((f) => f.id === id)?.executable, id).toBe(true);
  });
});
