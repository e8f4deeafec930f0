import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 15: the catalog's OID4VCI flows run for real against the issuer, the runner playing the wallet.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

describe('runnable OID4VCI flows', () => {
  for (const [flow, options, steps] of [
    ['pre-authorized-code', {}, 8],
    ['pre-authorized-tx-code', {}, 8],
    ['deferred', { credential_configuration_id: 'MobileDrivingLicenceMsoMdoc' }, 9],
    ['pre-authorized-code', { credential_configuration_id: 'UniversityDegreeCredentialLDP' }, 8],
    ['authorization-code', {}, 12],
  ] as const) {
    it(`${flow} ${JSON.stringify(options)} runs to the end, every hop recorded, the access token decoded`, async () => {
      const res = await fetch(`${server.url}/api/protocols/oid4vci/demo/${flow}`, json(options));
      const run = (await res.json()) as {
        status: string;
        error?: string;
        exchanges: Array<{ step: string; response: { status: number } }>;
        tokens: Array<{ name: string }>;
      };
      expect(run.status, run.error).toBe('succeeded');
      expect(run.exchanges).toHaveLength(steps);
      expect([200, 204]).toContain(run.exchanges.at(-1)!.response.status);
      expect(run.tokens.map((t) => t.name)).toContain('access_token');
      const flows = (await (await fetch(`${server.url}/api/protocols/oid4vci/flows`)).json()) as {
        flows: Array<{ id: string; executable: boolean }>;
      };
      expect(flows.flows.find((f) => f.id === flow)?.executable).toBe(true);
    });
  }
});
