import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMainProjections } from '../../../adapters/http/main/compose.ts';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { SqliteProjectionStore } from '../../../adapters/store/sqlite-projection-store.ts';
import type { AgentEvent } from '../../../machines/agent.ts';
import { ProjectionRunner } from '../../../projections/runner.ts';
import type { StoredEvent } from '../../../services/event-log.ts';
import { AUTOMATIC_SIGNALS_CHECKPOINT } from '../../../services/ssf/automatic.ts';
import { startChildServer } from '../../support/child-server.ts';

/** `streams` agents' sessions as stored events (six each: registered, redeemed, claimed, approved). */
export function sessionEvents(streams: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  let seq = 0;
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < streams; i++) {
    const at = t0 + i;
    const s = Math.floor(at / 1000);
    const events: AgentEvent[] = [
      {
        type: 'agent.registered',
        at,
        agentId: `agent-${i}`,
        claimTokenHash: `h${i}`,
        assertion: { jtiHash: `j${i}`, exp: s + 600, nbf: s },
      },
      { type: 'agent.assertion_redeemed', at: at + 10, jtiHash: `j${i}` },
      { type: 'agent.claim_started', at: at + 20, userCodeHash: `u${i}`, email: 'p@example.com' },
      { type: 'agent.claim_polled', at: at + 30 },
      { type: 'agent.claim_approved', at: at + 40, userCodeHash: `u${i}` },
      { type: 'agent.claim_polled', at: at + 6_000, assertion: { jtiHash: `k${i}`, exp: s + 700, nbf: s + 6 } },
    ];
    events.forEach(({ type, at: when, ...data }, v) =>
      out.push({ sequence: ++seq, streamId: `agent:agent-${i}`, version: v + 1, type, at: when, data }),
    );
  }
  return out;
}

/** Fills a data directory with `count` events (and caught-up projections), then times a cold start. */
export async function restartTime(count: number): Promise<{ startMs: number; healthMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-restart-'));
  const log = new SqliteEventLog(join(dir, 'main.db'));
  const insert = log.db.prepare(
    'INSERT INTO events (sequence, stream_id, version, type, data, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const events = sessionEvents(Math.ceil(count / 6)).slice(0, count);
  log.db.transaction(() => {
    for (const e of events) insert.run(e.sequence, e.streamId, e.version, e.type, JSON.stringify(e.data), e.at);
  })();
  // The service's own projections, caught up as a running service would have left them, and the
  // automatic signals' checkpoint where a running service keeps it (at the head: it reads on each commit).
  const runner = new ProjectionRunner(new SqliteProjectionStore(log), createMainProjections().all);
  await runner.start();
  await runner.stop();
  await log.saveCheckpoint(AUTOMATIC_SIGNALS_CHECKPOINT, events.at(-1)!.sequence);
  await log.close();
  const started = performance.now();
  const server = await startChildServer({ dataDir: dir });
  let healthMs = 0;
  for (;;) {
    const res = await fetch(`${server.url}/health`).catch(() => undefined);
    if (res?.status === 200) {
      healthMs = performance.now() - started;
      break;
    }
  }
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  return { startMs: server.startMs, healthMs };
}
