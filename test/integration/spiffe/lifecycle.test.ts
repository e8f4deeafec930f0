import 'reflect-metadata';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoff } from '../../../machines/spiffe-mode.ts';
import { SPIFFE_ENDPOINTS } from '../../../services/workload/settings.ts';
import { eventually, startSpiffeHarness, type SpiffeHarness } from '../../support/spiffe-harness.ts';

/**
 * Rotation, agent loss and reconnection over the wire. The service's clock is manual and it
 * considers a reconnection every 25 ms: moving the clock past the machine's backoff is what lets
 * the next attempt happen, so nothing here sleeps for the backoff.
 */
let h: SpiffeHarness;
beforeAll(async () => {
  h = await startSpiffeHarness();
});
afterAll(async () => {
  await h?.close();
});

const get = async (path: string) => {
  // A kept-alive connection to a closed server fails once; the retry opens a new one.
  const res = await fetch(h.url + path).catch(() => fetch(h.url + path));
  return { status: res.status, body: (await res.json()) as any };
};
const mode = async () => (await get('/health')).body.mode as string;
const rotation = async () => (await get('/spiffe/demo/rotation')).body;
const ROOT = new URL('../../../', import.meta.url).pathname;

function logRows(): Array<{ stream_id: string; type: string; data: string }> {
  const db = new Database(join(h.dataDir, 'spiffe.db'), { readonly: true });
  try {
    return db.prepare('SELECT stream_id, type, data FROM events ORDER BY sequence').all() as Array<{
      stream_id: string;
      type: string;
      data: string;
    }>;
  } finally {
    db.close();
  }
}

describe('X.509-SVID rotation', () => {
  it('a new SVID pushed on the stream shows in /spiffe/demo/rotation and in the event log', async () => {
    const first = await rotation();
    expect(first.rotations_observed).toBe(0);
    const oldSerial = first.current.serial;
    const bundleBefore = (await get('/spiffe/.well-known/spiffe-bundle')).body.spiffe_sequence;

    await h.agent.rotate();
    const after = await eventually(async () => {
      const r = await rotation();
      return r.rotations_observed === 1 && r;
    });
    expect(after.current.serial).not.toBe(oldSerial);
    expect(after.events.map((e: any) => e.type)).toEqual(['svid.observed', 'svid.rotated']);
    expect(after.events[1]).toMatchObject({
      spiffe_id: h.agent.spiffeId,
      previous_serial: oldSerial,
      serial: after.current.serial,
    });
    // Every endpoint now serves the new SVID.
    expect((await get('/spiffe/svid/x509')).body.serial).toBe(after.current.serial);
    expect((await get('/spiffe/svid/info')).body.rotations_observed).toBe(1);
    expect((await get('/spiffe/status')).body.rotations_observed).toBe(1);
    // Same trust bundle: same sequence.
    expect((await get('/spiffe/.well-known/spiffe-bundle')).body.spiffe_sequence).toBe(bundleBefore);

    const rows = logRows().filter((r) => r.stream_id === `x509-svid:${h.agent.spiffeId}`);
    expect(rows.map((r) => r.type)).toEqual(['svid.observed', 'svid.rotated']);
    expect(JSON.parse(rows[1].data)).toMatchObject({ previousSerial: oldSerial, serial: after.current.serial });
    // No key material in the log.
    const keyB64 = Buffer.from(h.agent.svid.key).toString('base64');
    for (const r of logRows()) expect(r.data).not.toContain(keyB64.slice(10, 60));
  });

  it('two more rotations are two more events, in order', async () => {
    await h.agent.rotate();
    await h.agent.rotate();
    const r = await eventually(async () => {
      const x = await rotation();
      return x.rotations_observed === 3 && x;
    });
    const serials = r.events.map((e: any) => e.serial);
    expect(new Set(serials).size).toBe(4);
    for (let i = 1; i < r.events.length; i++) expect(r.events[i].previous_serial).toBe(r.events[i - 1].serial);
  });
});

describe('agent loss and reconnection', () => {
  it('the agent going away puts the service back in demo mode: every endpoint 503', async () => {
    expect(await mode()).toBe('full');
    h.agent.stop();
    await eventually(async () => (await mode()) === 'demo');
    const health = (await get('/health')).body;
    expect(health.last_error).toMatch(/X\.509-SVID stream/);
    for (const e of SPIFFE_ENDPOINTS) {
      const res = await fetch(h.url + e.path, { method: e.method });
      expect(res.status, e.path).toBe(503);
      expect(await res.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'SPIFFE Workload API unavailable',
      });
    }
    const modeEvents = logRows()
      .filter((r) => r.stream_id === 'spiffe-mode:service')
      .map((r) => r.type);
    expect(modeEvents.slice(-1)).toEqual(['mode.agent_lost']);
  });

  it('no reconnection before the backoff has passed, even with the agent back', async () => {
    await h.agent.start();
    await new Promise((r) => setTimeout(r, 150)); // several retry ticks
    expect(await mode()).toBe('demo');
    expect(h.agent.openX509Streams).toBe(0);
  });

  it('after the backoff the service reconnects: full mode again, same SVID is no rotation', async () => {
    const before = (await rotation().catch(() => undefined))?.rotations_observed;
    expect(before).toBeUndefined(); // 503 in demo mode
    h.clock.advance(backoff(1));
    await eventually(async () => (await mode()) === 'full');
    expect((await get('/spiffe/status')).status).toBe(200);
    expect((await rotation()).rotations_observed).toBe(3);
    const modeEvents = logRows()
      .filter((r) => r.stream_id === 'spiffe-mode:service')
      .map((r) => r.type);
    expect(modeEvents.slice(-3)).toEqual(['mode.agent_lost', 'mode.connect_requested', 'mode.connected']);
  });

  it('a failed attempt while the agent is still away doubles the wait', async () => {
    h.agent.stop();
    await eventually(async () => (await mode()) === 'demo');
    h.clock.advance(backoff(1));
    await eventually(async () => (await h.service.mode.current()).context.failures === 2);
    const { context } = await h.service.mode.current();
    expect(context.retryAt! - h.clock.now()).toBe(backoff(2));
    // Rotated while we were away: seen as a rotation once back.
    await h.agent.rotate();
    await h.agent.start();
    h.clock.advance(backoff(2));
    await eventually(async () => (await mode()) === 'full');
    expect((await rotation()).rotations_observed).toBe(4);
  });

  it('a restarted service records the lost connection, reconnects, and keeps the rotation history', async () => {
    await h.restartService();
    expect(await mode()).toBe('demo');
    h.clock.advance(backoff(1));
    await eventually(async () => (await mode()) === 'full');
    expect((await rotation()).rotations_observed).toBe(4);
    const modeEvents = logRows().filter((r) => r.stream_id === 'spiffe-mode:service');
    expect(
      modeEvents.some((r) => r.type === 'mode.agent_lost' && JSON.parse(r.data).reason === 'the service restarted'),
    ).toBe(true);
  });

  it('the event log replays to the stored snapshots (npm run replay)', () => {
    const out = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'scripts/replay.ts'), join(h.dataDir, 'spiffe.db'), '--json', '--quiet'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(out.status, out.stderr + out.stdout.slice(0, 500)).toBe(0);
  });
});
