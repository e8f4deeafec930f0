import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 36: the catalog flow mcp/authorization runs the whole MCP authorization dance, captured.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

async function run(options: Record<string, string>) {
  const res = await fetch(`${server.url}/api/protocols/mcp/demo/authorization`, json(options));
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(201);
  expect(body.status, `${body.error} ${JSON.stringify(body.exchanges?.at(-1))?.slice(0, 600)}`).toBe('succeeded');
  return body.exchanges as Array<{ step: string; request: any; response: any }>;
}

describe('mcp/authorization', () => {
  it('401, PRM, AS metadata, the runner’s metadata document as client_id, PAR, token, the call, and step-up', async () => {
    const exchanges = await run({});
    expect(exchanges.map((x) => x.step)).toEqual([
      'Connect without a token',
      'Protected resource metadata',
      'Authorization server metadata',
      'Our client metadata document',
      'Push the read request',
      'Authorization request (browser)',
      'Login page (person)',
      'Sign in as a demo user (person)',
      'Consent page (person)',
      'Allow (person)',
      'Token (read)',
      'Connect with the token',
      'Call whoami',
      'Call start_flow with mcp:read',
      'Push the step-up request',
      'Authorization request (browser)',
      'Login page (person)',
      'Sign in as a demo user (person)',
      'Consent page (person)',
      'Allow (person)',
      'Token (step-up)',
      'Call start_flow after step-up',
    ]);
    const token = exchanges.find((x) => x.step === 'Token (read)')!;
    expect(token.request.body.client_id).toBe(`${server.url}/mcp/flow-client.json`);
    expect(token.response.status).toBe(200);
    expect(exchanges[0].response.headers['www-authenticate']).toMatch(/resource_metadata="/);
    expect(exchanges.find((x) => x.step === 'Call start_flow with mcp:read')!.response.status).toBe(403);
  });

  it('with registration=dcr, registers by RFC 7591 instead', async () => {
    const exchanges = await run({ registration: 'dcr' });
    const registered = exchanges.find((x) => x.step === 'Register the client (DCR fallback)')!;
    expect(registered.response.status).toBe(201);
    expect(exchanges.some((x) => x.step === 'Our client metadata document')).toBe(false);
    const token = exchanges.find((x) => x.step === 'Token (step-up)')!;
    expect(token.request.body.client_id).toBe(registered.response.body.client_id);
  });
});
