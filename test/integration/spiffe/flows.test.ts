import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { eventually, startSpiffeHarness, type SpiffeHarness } from '../../support/spiffe-harness.ts';

/**
 * The `spiffe` catalog flows through the flow-runner interface of the main origin, which reaches the
 * workload identity service over HTTP at SHOWCASE_BASE_URL.
 */
let h: SpiffeHarness;
let main: TestServer;
let plain: TestServer;
beforeAll(async () => {
  h = await startSpiffeHarness();
  main = await startMainServer({ env: { SHOWCASE_SPIFFE_ENABLED: 'true', SHOWCASE_BASE_URL: h.url } });
  plain = await startMainServer();
});
afterAll(async () => {
  await main?.close();
  await plain?.close();
  await h?.close();
});

const run = async (server: TestServer, flow: string, options: unknown = {}) => {
  const res = await fetch(`${server.url}/api/protocols/spiffe/demo/${flow}`, json(options));
  return { status: res.status, body: (await res.json()) as any };
};

describe('spiffe flows', () => {
  it('are executable where full mode is enabled, and not otherwise (409)', async () => {
    const flows = ((await (await fetch(`${main.url}/api/protocols/spiffe/flows`)).json()) as any).flows;
    expect(flows.map((f: any) => [f.id, f.executable]).sort()).toEqual([
      ['jwt-svid-auth', true],
      ['x509-svid-mtls', true],
    ]);
    const off = ((await (await fetch(`${plain.url}/api/protocols/spiffe/flows`)).json()) as any).flows;
    expect(off.every((f: any) => f.executable === false)).toBe(true);
    const refused = await run(plain, 'x509-svid-mtls');
    expect([refused.status, refused.body.error]).toEqual([409, 'flow_not_executable']);
  });

  it('x509-svid-mtls runs for real: SVID, bundle, mTLS handshake, validation', async () => {
    const { status, body } = await run(main, 'x509-svid-mtls');
    expect(status).toBe(201);
    expect(body.status, body.error).toBe('succeeded');
    expect(body.exchanges.map((x: any) => x.step)).toEqual([
      'Workload identity service mode',
      'Fetch the SVID',
      'Trust bundle',
      'Handshake',
      'Our chain as PEM',
      'Verify the peer',
    ]);
    const handshake = body.exchanges.find((x: any) => x.step === 'Handshake');
    expect(handshake.request.url).toBe(`${h.url}/spiffe/demo/mtls/call`);
    expect(handshake.response.body.outcome).toBe('success');
    expect(body.steps.map((s: any) => s.name)).toEqual(['Fetch the SVID', 'Handshake', 'Verify the peer']);
  });

  it('jwt-svid-auth runs for real; the JWT-SVID is decoded in the run and redacted in the log', async () => {
    const { status, body } = await run(main, 'jwt-svid-auth');
    expect(status).toBe(201);
    expect(body.status, body.error).toBe('succeeded');
    expect(body.tokens.find((t: any) => t.name === 'svid')).toMatchObject({
      payload: { sub: h.agent.spiffeId, aud: ['spiffe-flow-receiver'] },
    });
    const stored = (await (await fetch(`${main.url}/api/runs/${body.run_id}`)).json()) as any;
    const fetched = stored.exchanges.find((x: any) => x.step === 'Fetch a JWT-SVID');
    expect(fetched.response.body.svid).toMatch(/^\[redacted hmac:/);
    expect(JSON.stringify(stored)).not.toContain(body.exchanges[1].response.body.svid);
  });

  it('a run against a service in demo mode fails at its first step, with the reason', async () => {
    h.agent.stop();
    await eventually(async () => ((await (await fetch(`${h.url}/health`)).json()) as any).mode === 'demo');
    const { status, body } = await run(main, 'x509-svid-mtls');
    expect(status).toBe(201);
    expect(body.status).toBe('failed');
    expect(body.error).toContain('demo mode');
    expect(body.exchanges).toHaveLength(1);
  });
});
