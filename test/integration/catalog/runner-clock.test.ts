import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../services/clock.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 37: flow runners date their own JWTs by the service's injected clock. With the service's clock
// an hour away from the machine's, every runner-made proof and assertion still fits the server's windows.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer({ clock: new ManualClock(Date.now() + 3_600_000) });
});
afterAll(async () => {
  await server.close();
});

describe('flow runs on an injected clock', () => {
  for (const [protocol, flow, options] of [
    ['oauth2', 'client-credentials', { client_auth: 'private_key_jwt', token_mode: 'dpop' }],
    ['oid4vci', 'pre-authorized-code', {}],
    ['oid4vp', 'dcql-direct-post', {}],
  ] as const) {
    it(`[issue 37] ${protocol}/${flow} succeeds with the service's clock an hour ahead of the machine`, async () => {
      const run = (await exchange(server.url, `/api/protocols/${protocol}/demo/${flow}`, json(options))).body;
      expect(
        run.status,
        JSON.stringify(
          run.exchanges
            ?.map((x: { step: string; response: { status: number; body: unknown } }) => [
              x.step,
              x.response.status,
              x.response.body,
            ])
            .filter((x: unknown[]) => Number(x[1]) >= 400),
        ),
      ).toBe('succeeded');
    });
  }
});
