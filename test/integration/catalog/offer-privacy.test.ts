import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 45 item 34: an offer id reaches nobody but the offer's creator; a public run never shows it.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

describe('a public run of an issuance flow', () => {
  it('shows neither the offer id nor the status token, in any exchange, URL or body', async () => {
    const run = await exchange(server.url, '/api/protocols/oid4vci/demo/pre-authorized-code', json({}));
    expect(run.status).toBe(201);
    const full = JSON.stringify(run.body);
    const offerId = /"offer_id":"([^"]+)"/.exec(full)?.[1];
    const statusToken = /"status_token":"([^"]+)"/.exec(full)?.[1];
    expect(offerId).toBeDefined();
    expect(statusToken).toBeDefined();
    const stored = await (await fetch(`${server.url}/api/runs/${run.body.run_id}`)).text();
    const har = await (await fetch(`${server.url}/api/runs/${run.body.run_id}/har`)).text();
    for (const text of [stored, har]) {
      expect(text).not.toContain(statusToken);
      // Decoded token claims are shown on purpose; everything recorded from the wire is redacted.
      const wire = text.replace(/"issuance":"[^"]+"/g, '');
      expect(wire).not.toContain(offerId);
      expect(wire).not.toContain(encodeURIComponent(offerId!));
    }
  });
});
