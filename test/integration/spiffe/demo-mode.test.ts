import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initialTransition, transition } from 'xstate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../adapters/config.ts';
import { createSpiffeService, type SpiffeService } from '../../../adapters/http/spiffe/app.ts';
import { backoff, spiffeModeMachine, RETRY_MAX_MS } from '../../../machines/spiffe-mode.ts';
import { ManualClock } from '../../../services/clock.ts';
import { SPIFFE_ENDPOINTS } from '../../../services/workload/settings.ts';

async function start(env: Record<string, string> = {}, clock = new ManualClock()) {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-spiffe-'));
  const service = await createSpiffeService(
    loadConfig({ DATA_DIR: dataDir, BASE_URL: 'https://portico.example', RATE_LIMIT_PER_MINUTE: '100000', ...env }),
    { clock, retryEveryMs: 3_600_000 },
  );
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`;
  return { service, url, dataDir, clock };
}

let demo: { service: SpiffeService; url: string; dataDir: string };
beforeAll(async () => {
  demo = await start();
});
afterAll(async () => {
  await demo.service.close();
  rmSync(demo.dataDir, { recursive: true, force: true });
});

describe('workload identity service in demo mode', () => {
  it('/health answers 200 with mode demo and the trust domain from BASE_URL', async () => {
    const res = await fetch(`${demo.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'ok',
      mode: 'demo',
      trust_domain: 'portico.example',
      full_mode_enabled: false,
    });
  });

  it('every /spiffe/* endpoint of the spec answers 503 temporarily_unavailable', async () => {
    for (const e of SPIFFE_ENDPOINTS) {
      const res = await fetch(demo.url + e.path, {
        method: e.method,
        ...(e.method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      });
      expect(res.status, e.path).toBe(503);
      expect(await res.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'SPIFFE Workload API unavailable',
      });
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect(SPIFFE_ENDPOINTS).toHaveLength(13);
    expect((await fetch(`${demo.url}/spiffe/svid/x509`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${demo.url}/spiffe/nothing`)).status).toBe(404);
  });

  it('fuzzed bodies never produce a 5xx other than the demo-mode 503', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/spiffe/validate/jwt', '/spiffe/validate/x509', '/spiffe/demo/mtls/call'),
        fc.string({ maxLength: 80 }),
        async (path, body) => {
          const res = await fetch(demo.url + path, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          expect([400, 503]).toContain(res.status);
          expect(typeof (await res.json()).error).toBe('string');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('with full mode enabled but no reachable agent it stays in demo mode and records the failed attempt', async () => {
    const enabled = await start({
      SHOWCASE_SPIFFE_ENABLED: 'true',
      SHOWCASE_SPIFFE_SOCKET_PATH: 'unix:///nonexistent/agent.sock',
    });
    try {
      const health = (await (await fetch(`${enabled.url}/health`)).json()) as any;
      expect(health).toMatchObject({ mode: 'demo', full_mode_enabled: true });
      expect(health.last_error).toBeTruthy();
      expect((await fetch(`${enabled.url}/spiffe/status`)).status).toBe(503);
      // The next attempt waits for the backoff.
      const before = (await enabled.service.mode.current()).context.failures;
      await enabled.service.mode.attempt();
      expect((await enabled.service.mode.current()).context.failures).toBe(before);
      enabled.clock.advance(backoff(before));
      await enabled.service.mode.attempt();
      expect((await enabled.service.mode.current()).context.failures).toBe(before + 1);
    } finally {
      await enabled.service.close();
      rmSync(enabled.dataDir, { recursive: true, force: true });
    }
  });
});

describe('rate limit', () => {
  it('the /spiffe/* endpoints share the per-IP limit (429, JSON error, no Retry-After); /health is free', async () => {
    const limited = await start({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${limited.url}/spiffe/status`)).status);
      expect(statuses).toEqual([503, 503, 503, 429, 429]);
      const res = await fetch(`${limited.url}/spiffe/svid/x509`);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'rate_limited' });
      expect((await fetch(`${limited.url}/health`)).status).toBe(200);
    } finally {
      await limited.service.close();
      rmSync(limited.dataDir, { recursive: true, force: true });
    }
  });
});

describe('SPIFFE mode machine', () => {
  it('is full only between a connection and the next loss; backoff grows and is capped', () => {
    const event = fc.oneof(
      fc.constant({ type: 'mode.connect_requested' as const, socketPath: 's' }),
      fc.constant({ type: 'mode.connected' as const }),
      fc.constant({ type: 'mode.connect_failed' as const, reason: 'x' }),
      fc.constant({ type: 'mode.agent_lost' as const, reason: 'gone' }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        let [s] = initialTransition(spiffeModeMachine);
        let at = 0;
        for (const e of events) {
          at += 1000;
          const before = s.value;
          [s] = transition(spiffeModeMachine, s, { ...e, at } as never);
          if (s.value === 'full')
            expect(before === 'full' || (before === 'connecting' && e.type === 'mode.connected')).toBe(true);
          if (before === 'full' && e.type === 'mode.agent_lost') expect(s.value).toBe('demo');
        }
      }),
    );
    for (let n = 1; n < 20; n++) expect(backoff(n + 1)).toBeGreaterThanOrEqual(backoff(n));
    expect(backoff(100)).toBe(RETRY_MAX_MS);
  });
});
