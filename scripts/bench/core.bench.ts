import autocannon from 'autocannon';

import { SignJWT, generateKeyPair, jwtVerify } from 'jose';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initialTransition, transition } from 'xstate';
import { SqliteEventLog } from '../../adapters/store/sqlite-event-log.ts';
import { agentMachine, type AgentEvent } from '../../machines/agent.ts';
import { fold, toMachineEvent } from '../../services/actors/fold.ts';
import { BoundedCache } from '../../services/bounded-cache.ts';
import type { StoredEvent } from '../../services/event-log.ts';
import { startChildServer } from '../support/child-server.ts';
import { restartTime, sessionEvents } from './support/agent-log.ts';
import { opsPerSecond, type Bench, type BenchRow } from './types.ts';
import { loadToolSettings } from '../../adapters/config.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const RESTART_EVENTS = loadToolSettings().benchRestartEvents;

async function joseRates() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwt = await new SignJWT({ sub: 'x' })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  const sign = await opsPerSecond(() =>
    new SignJWT({ sub: 'x', scope: 'agent:read' })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey),
  );
  const verify = await opsPerSecond(() => jwtVerify(jwt, publicKey));
  return { sign, verify, signVerify: 1 / (1 / sign + 1 / verify) };
}

async function httpRates(): Promise<{ register: number; exchange: number }> {
  const server = await startChildServer();
  try {
    const registration = await autocannon({
      url: `${server.url}/agentauth/identity`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":"anonymous"}',
      connections: 16,
      duration: 5,
    });
    // Collect fresh assertions for the exchange run (each redeems once).
    const assertions: string[] = [];
    while (assertions.length < 24_000) {
      const batch = await Promise.all(
        Array.from({ length: 64 }, () =>
          fetch(`${server.url}/agentauth/identity`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"type":"anonymous"}',
          }).then((r) => r.json() as Promise<{ identity_assertion: string }>),
        ),
      );
      for (const b of batch) assertions.push(b.identity_assertion);
    }
    let next = 0;
    const exchange = await autocannon({
      url: `${server.url}/agentauth/token`,
      connections: 16,
      // A timed run: autocannon ends a fixed-amount run on its one-second tick, which rounds the rate.
      duration: 5,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          setupRequest: (req: Record<string, unknown>) => ({
            ...req,
            body: `grant_type=${encodeURIComponent(JWT_BEARER)}&assertion=${assertions[next++ % assertions.length]}`,
          }),
        },
      ],
    });
    if (exchange.non2xx > 0)
      throw new Error(`${exchange.non2xx} token exchanges failed (assertions ran out or were refused)`);
    const rate = (r: { requests: { total: number }; duration: number }) => r.requests.total / r.duration;
    return { register: rate(registration), exchange: rate(exchange) };
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

async function appendRate(synchronous: 'NORMAL' | 'FULL'): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-log-'));
  const log = new SqliteEventLog(join(dir, 'events.db'), { synchronous });
  let i = 0;
  const rate = await opsPerSecond(
    () => log.appendSync(`bench:${i}`, 0, [{ type: 'bench.appended', at: i++, data: { i } }]),
    1500,
  );
  await log.close();
  rmSync(dir, { recursive: true, force: true });
  return rate;
}

function replayRates(): { replay: number; bare: number } {
  const events = sessionEvents(5_000);
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-replay-'));
  const file = join(dir, 'events.db');
  const log = new SqliteEventLog(file);
  const insert = log.db.prepare(
    'INSERT INTO events (sequence, stream_id, version, type, data, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  log.db.transaction(() => {
    for (const e of events) insert.run(e.sequence, e.streamId, e.version, e.type, JSON.stringify(e.data), e.at);
  })();

  // Bare: the same machine events, already in memory, through xstate's transition.
  const machineEvents = events.map(toMachineEvent);
  let t = performance.now();
  let s = initialTransition(agentMachine)[0];
  for (let i = 0; i < machineEvents.length; i++) {
    if (i % 6 === 0) s = initialTransition(agentMachine)[0];
    s = transition(agentMachine, s, machineEvents[i] as AgentEvent)[0];
  }
  const bare = machineEvents.length / ((performance.now() - t) / 1000);

  // Replay: read from SQLite, parse, group by stream, fold.
  t = performance.now();
  const rows = log.db
    .prepare<[], { sequence: number; stream_id: string; version: number; type: string; data: string; at: number }>(
      'SELECT * FROM events ORDER BY stream_id, version',
    )
    .all();
  let current: StoredEvent[] = [];
  let stream = '';
  for (const r of rows) {
    if (r.stream_id !== stream && current.length) {
      fold(agentMachine, current);
      current = [];
    }
    stream = r.stream_id;
    current.push({
      sequence: r.sequence,
      streamId: r.stream_id,
      version: r.version,
      type: r.type,
      at: r.at,
      data: JSON.parse(r.data),
    });
  }
  fold(agentMachine, current);
  const replay = rows.length / ((performance.now() - t) / 1000);
  void log.close();
  rmSync(dir, { recursive: true, force: true });
  return { replay, bare };
}

/**
 * Inserts into a full 10,000-entry cache (every insert evicts): BoundedCache against a Map that
 * evicts through a fresh `keys().next()`, which walks the slots of earlier evictions.
 */
async function cacheRates() {
  const SIZE = 10_000;
  const keys = Array.from({ length: 200_000 }, (_, i) => `presentation:${i.toString(36).padStart(24, '0')}`);
  const cache = new BoundedCache<string, number>(SIZE);
  const naive = new Map<string, number>();
  let i = 0;
  let j = 0;
  const bounded = await opsPerSecond(() => cache.set(keys[i++ % keys.length], i));
  const fresh = await opsPerSecond(() => {
    naive.set(keys[j++ % keys.length], j);
    if (naive.size > SIZE) naive.delete(naive.keys().next().value as string);
  });
  return { bounded, fresh };
}

const bench: Bench = async () => {
  const rows: BenchRow[] = [];
  const jose = await joseRates();
  rows.push({ name: 'jose ES256 sign (sequential)', value: jose.sign, unit: 'ops/s' });
  rows.push({ name: 'jose ES256 verify (sequential)', value: jose.verify, unit: 'ops/s' });
  const http = await httpRates();
  rows.push({
    name: 'POST /agentauth/identity over HTTP (autocannon, 16 conns)',
    value: http.register,
    unit: 'req/s',
    ratio: { against: 'raw sign', value: http.register / jose.sign, target: '>= 0.50' },
  });
  rows.push({
    name: 'jwt-bearer exchange at /agentauth/token over HTTP',
    value: http.exchange,
    unit: 'req/s',
    ratio: { against: 'raw sign+verify', value: http.exchange / jose.signVerify, target: '>= 0.50' },
  });
  const normal = await appendRate('NORMAL');
  const full = await appendRate('FULL');
  rows.push({
    name: 'event-log appends, 1 event/tx, synchronous=NORMAL (service)',
    value: normal,
    unit: 'appends/s',
    note: 'target >= 20,000',
  });
  rows.push({
    name: 'event-log appends, 1 event/tx, synchronous=FULL',
    value: full,
    unit: 'appends/s',
    ratio: { against: 'NORMAL', value: full / normal },
  });
  const replay = replayRates();
  rows.push({ name: 'bare xstate transition fold (in memory)', value: replay.bare, unit: 'events/s' });
  rows.push({
    name: 'replay: read SQLite + parse + fold',
    value: replay.replay,
    unit: 'events/s',
    ratio: { against: 'bare fold', value: replay.replay / replay.bare, target: '>= 0.80' },
  });
  const cache = await cacheRates();
  rows.push({
    name: 'evicting Map: fresh keys().next() per insert (10,000, full)',
    value: cache.fresh,
    unit: 'inserts/s',
  });
  rows.push({
    name: 'actor cache (BoundedCache) insert, 10,000 entries, full',
    value: cache.bounded,
    unit: 'inserts/s',
    ratio: { against: 'fresh keys() per eviction', value: cache.bounded / cache.fresh },
  });
  const restart = await restartTime(RESTART_EVENTS);
  rows.push({
    name: `restart with ${RESTART_EVENTS.toLocaleString('en-US')} events: /health answers after`,
    value: restart.healthMs,
    unit: 'ms',
    note: 'target <= 3,000',
  });
  return rows;
};

export default bench;
