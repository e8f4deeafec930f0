import autocannon from 'autocannon';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { Agent, request } from 'undici';
import { GuardedHttp, checkExternalUrl, vettedAddresses } from '../../adapters/outbound/guarded-http.ts';
import { ManualClock } from '../../services/clock.ts';
import { WalletSessions } from '../../services/wallet/sessions.ts';
import { startChildServer } from '../support/child-server.ts';
import { opsPerSecond, type Bench } from './types.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap bytes per idle session with 10,000 sessions held (keys, DID, empty stores). */
async function bytesPerIdleSession(count = 10_000): Promise<number> {
  const sessions = new WalletSessions(
    {
      ttlMs: 20 * 60_000,
      strict: true,
      signingAlg: 'ES256',
      didMethod: 'key',
      walletHost: 'wallet.test',
      maxSessions: count * 2,
    },
    new ManualClock(0),
  );
  gc();
  const before = process.memoryUsage().heapUsed + process.memoryUsage().external;
  for (let i = 0; i < count; i++) await sessions.resolve(`s${i}`);
  gc();
  const after = process.memoryUsage().heapUsed + process.memoryUsage().external;
  if (sessions.size !== count) throw new Error('sessions were dropped');
  return (after - before) / count;
}

/**
 * The guard's own per-fetch work (URL rules, resolution with vetting, redirect and size handling)
 * beside a plain undici request to the same loopback target. The guard never dials loopback for an
 * external name, so its checks for a public name (answered from an override) run on top of the
 * same trusted-origin fetch.
 */
async function guardCost(): Promise<{ plain: number; guarded: number }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const agent = new Agent();
  const guard = new GuardedHttp({
    trustedOrigins: new Set([origin]),
    allowExternal: true,
    dnsOverrides: new Map([['issuer.bench.example', ['93.184.216.34']]]),
  });
  const external = new URL('https://issuer.bench.example/.well-known/openid-credential-issuer');
  const overrides = new Map([['issuer.bench.example', ['93.184.216.34']]]);
  const plainFetch = async () => {
    const res = await request(`${origin}/x`, { dispatcher: agent });
    await res.body.arrayBuffer();
  };
  // Conservative: the checks of a name run on every fetch here, while the guard runs them per new connection.
  const guardedFetch = async () => {
    checkExternalUrl(external);
    await vettedAddresses(external.hostname, async () => [], overrides);
    await guard.send(`${origin}/x`);
  };
  try {
    // Interleaved rounds, so neither side gets the warm-up or a noisy neighbour alone.
    let plain = 0;
    let guarded = 0;
    for (let round = 0; round < 4; round++) {
      plain += await opsPerSecond(plainFetch, 600);
      guarded += await opsPerSecond(guardedFetch, 600);
    }
    return { plain: plain / 4, guarded: guarded / 4 };
  } finally {
    await agent.close();
    await guard.close();
    server.close();
  }
}

const bench: Bench = async () => {
  const perSession = await bytesPerIdleSession();
  const cost = await guardCost();
  const wallet = await startChildServer({ service: 'wallet' });
  try {
    const read = await autocannon({
      url: `${wallet.url}/api/session`,
      headers: { 'x-wallet-session': 'bench-session' },
      connections: 16,
      duration: 5,
    });
    const mint = await autocannon({ url: `${wallet.url}/api/session`, connections: 16, duration: 5 });
    if (read.non2xx + mint.non2xx > 0) throw new Error('session requests failed');
    return [
      { name: 'GET /api/session, existing session (HTTP)', value: read.requests.average, unit: 'req/s' },
      {
        name: 'GET /api/session minting a session each time (ES256 key + DID)',
        value: mint.requests.average,
        unit: 'req/s',
      },
      { name: 'memory per idle session (10,000 held, ES256, did:key)', value: perSession / 1024, unit: 'KiB' },
      { name: 'plain undici request to a loopback target', value: cost.plain, unit: 'ops/s' },
      {
        name: 'same, through the outbound guard (+ its checks of a public name)',
        value: cost.guarded,
        unit: 'ops/s',
        ratio: { against: 'plain undici', value: cost.guarded / cost.plain, target: '>= 0.90' },
      },
    ];
  } finally {
    await wallet.stop();
    rmSync(wallet.dataDir, { recursive: true, force: true });
  }
};

export default bench;
