import 'reflect-metadata';
import { afterAll, describe, expect, it } from 'vitest';
import { TestMtlsPeer } from '../../support/mtls-peer.ts';
import { TestTrustDomain } from '../../support/spiffe-ca.ts';
import { TRUST_DOMAIN, startSpiffeHarness, type SpiffeHarness } from '../../support/spiffe-harness.ts';

/** The mTLS demo refuses peers it cannot authenticate, and says at which step. */
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function demoAgainst(address: string): Promise<any> {
  const h: SpiffeHarness = await startSpiffeHarness({ env: { SPIRE_SERVER_ADDRESS: address } });
  cleanups.push(() => h.close());
  const res = await fetch(`${h.url}/spiffe/demo/mtls/call`, { method: 'POST' });
  expect(res.status).toBe(200);
  return res.json();
}

const failedStep = (report: any) => report.steps.find((s: any) => !s.ok);

describe('mTLS demo peer checks', () => {
  it('a peer from a foreign trust domain: the chain does not lead to our bundle', async () => {
    const foreign = new TestMtlsPeer(await TestTrustDomain.create('elsewhere.test'));
    const address = await foreign.start();
    cleanups.push(() => foreign.stop());
    const report = await demoAgainst(address);
    expect(report.outcome).toBe('failure');
    expect(failedStep(report).name).toBe('Verify the peer chain');
    expect(report.steps.at(-1)).toMatchObject({ name: 'Authorize the peer SPIFFE ID', ok: false });
    expect(report.steps.at(-1).detail).toContain(`not in the trust domain ${TRUST_DOMAIN}`);
  });

  it('a peer of our CA whose certificate names another SPIFFE ID form is refused at authorization', async () => {
    const domain = await TestTrustDomain.create(TRUST_DOMAIN);
    const odd = new TestMtlsPeer(domain, 'https://spire.portico.test');
    const address = await odd.start();
    cleanups.push(() => odd.stop());
    const h = await startSpiffeHarness({ domain, env: { SPIRE_SERVER_ADDRESS: address } });
    cleanups.push(() => h.close());
    const report = (await (await fetch(`${h.url}/spiffe/demo/mtls/call`, { method: 'POST' })).json()) as any;
    expect(report.outcome).toBe('failure');
    expect(report.steps.map((s: any) => s.ok)).toEqual([true, true, true, true, false]);
    expect(report.steps[4].detail).toContain('not a SPIFFE ID');
  });

  it('nothing listening at SPIRE_SERVER_ADDRESS: the handshake step fails, HTTP 200 with the report', async () => {
    const report = await demoAgainst('127.0.0.1:1');
    expect(report.outcome).toBe('failure');
    expect(failedStep(report)).toMatchObject({ name: 'Mutual TLS handshake' });
    expect(failedStep(report).detail).toContain('ECONNREFUSED');
  });

  it('an address that is not host:port fails at the first step that needs it', async () => {
    const report = await demoAgainst('not an address');
    expect(failedStep(report)).toMatchObject({ name: 'Resolve the target' });
  });
});
