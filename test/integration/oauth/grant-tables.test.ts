import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 37: the three token endpoints are one grant table each; a missing grant_type is invalid_request
// (RFC 6749 §5.2) and an unknown one unsupported_grant_type naming what the endpoint supports.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const basic = `Basic ${Buffer.from('demo-app:demo-app-secret').toString('base64')}`;
const ENDPOINTS: Array<{ path: string; headers: Record<string, string> }> = [
  { path: '/oauth2/token', headers: { authorization: basic } },
  { path: '/oid4vci/token', headers: {} },
  { path: '/agentauth/token', headers: {} },
];

describe('token endpoints as grant tables', () => {
  it.each(ENDPOINTS)('$path: no grant_type is 400 invalid_request', async ({ path, headers }) => {
    const res = await exchange(server.url, path, form({ scope: 'x' }, headers));
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });

  it.each(ENDPOINTS)('$path: an unknown grant_type is 400 unsupported_grant_type', async ({ path, headers }) => {
    const res = await exchange(server.url, path, form({ grant_type: 'urn:example:nothing' }, headers));
    expect([res.status, res.body.error]).toEqual([400, 'unsupported_grant_type']);
    expect(res.body.error_description).toMatch(/supports: /);
  });
});
