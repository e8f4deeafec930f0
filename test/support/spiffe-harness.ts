import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../adapters/config.ts';
import { createSpiffeService, type SpiffeService } from '../../adapters/http/spiffe/app.ts';
import { ManualClock } from '../../services/clock.ts';
import { TestMtlsPeer } from './mtls-peer.ts';
import { TestTrustDomain } from './spiffe-ca.ts';
import { TestWorkloadApiServer } from './workload-api-server.ts';

export const TRUST_DOMAIN = 'portico.test';

export interface SpiffeHarness {
  url: string;
  /** The running service (replaced by `restartService`). */
  service: SpiffeService;
  agent: TestWorkloadApiServer;
  peer: TestMtlsPeer;
  domain: TestTrustDomain;
  clock: ManualClock;
  dataDir: string;
  /** Closes the service and starts a new one on the same port and data directory (same event log). */
  restartService(): Promise<void>;
  close(): Promise<void>;
}

/** Polls `check` every 20 ms until it holds (or fails after `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The workload identity service in full mode against a test agent on a unix socket in a temp
 * directory, with an mTLS peer at SPIRE_SERVER_ADDRESS. The service's clock is manual; it considers a
 * reconnection every 25 ms, so a test moves the clock past the backoff instead of sleeping.
 */
export async function startSpiffeHarness(
  options: { domain?: TestTrustDomain; env?: Record<string, string> } = {},
): Promise<SpiffeHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-spiffe-full-'));
  const domain = options.domain ?? (await TestTrustDomain.create(TRUST_DOMAIN));
  const agent = new TestWorkloadApiServer(domain, join(dataDir, 'agent.sock'));
  await agent.start();
  const peer = new TestMtlsPeer(domain);
  const peerAddress = await peer.start();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const clock = new ManualClock(Date.now());
  const config = loadConfig({
    HOST: '127.0.0.1',
    SPIFFE_PORT: String(port),
    BASE_URL: `https://${TRUST_DOMAIN}`,
    SHOWCASE_BASE_URL: url,
    DATA_DIR: dataDir,
    BUILD_COMMIT: 'test-commit',
    RATE_LIMIT_PER_MINUTE: '100000',
    SHOWCASE_SPIFFE_ENABLED: 'true',
    SHOWCASE_SPIFFE_SOCKET_PATH: agent.address,
    SPIRE_SERVER_ADDRESS: peerAddress,
    ...options.env,
  });
  const start = async () => {
    const service = await createSpiffeService(config, { clock, retryEveryMs: 25 });
    await service.app.listen({ host: '127.0.0.1', port });
    return service;
  };
  const harness: SpiffeHarness = {
    url,
    service: await start(),
    agent,
    peer,
    domain,
    clock,
    dataDir,
    async restartService() {
      await harness.service.close();
      harness.service = await start();
    },
    async close() {
      await harness.service.close();
      agent.stop();
      await peer.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
