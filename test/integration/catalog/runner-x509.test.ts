import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 46 §3: the OID4VP flow runner checks the request object's x5c through the one path validator
// (RFC 5280 §6), validity dates included; `leaf.verify(anchor)` took a certificate past its notAfter.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server?.close();
});

describe('the OID4VP runner as a wallet', () => {
  it('refuses a request object whose certificate has expired at the run time', async () => {
    const ok = await fetch(`${server.url}/api/protocols/oid4vp/demo/dcql-direct-post`, json({}));
    expect(((await ok.json()) as { status: string }).status).toBe('succeeded');
    // The verifier's leaf is valid for a year from the start: a run a year and a day later meets it expired.
    server.clock.advance(366 * 24 * 3600 * 1000);
    const res = await fetch(`${server.url}/api/protocols/oid4vp/demo/dcql-direct-post`, json({}));
    const run = (await res.json()) as { status: string; error?: string };
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/does not chain to the verifier CA: .*not valid at the verification time/);
  });
});
