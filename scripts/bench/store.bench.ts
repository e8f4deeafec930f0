import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { PostgresEventLog } from '../../adapters/store/postgres-event-log.ts';
import { SqliteEventLog } from '../../adapters/store/sqlite-event-log.ts';
import { agentMachine } from '../../machines/agent.ts';
import { fold } from '../../services/actors/fold.ts';
import type { EventLog, StoredEvent } from '../../services/event-log.ts';
import { postgresAvailable, startPostgres } from '../../test/support/postgres.ts';
import { startChildServer } from '../support/child-server.ts';
import { concurrentFlows, type Bench, type BenchRow } from './types.ts';

const APPEND_MS = 2_000;
const REPLAY_STREAMS = 5_000;
const HTTP_CONCURRENCY = 16;

/** Appends of one event each: awaited one at a time (a round trip per transaction), and 32 in flight (group commit). */
async function appendRates(log: EventLog): Promise<{ sequential: number; concurrent: number }> {
  let i = 0;
  const one = () => log.append(`bench:${i}`, 0, [{ type: 'bench.appended', at: i++, data: { i } }]);
  const sequential = await concurrentFlows(one, 1, APPEND_MS, 0);
  const concurrent = await concurrentFlows(one, 32, APPEND_MS, 0);
  return { sequential: sequential.done / sequential.seconds, concurrent: concurrent.done / concurrent.seconds };
}

/** Six-event agent sessions written through the log, then every stream read back through the interface and folded. */
async function replayRate(log: EventLog): Promise<number> {
  const at = Date.UTC(2026, 0, 1);
  const batch: Promise<unknown>[] = [];
  for (let i = 0; i < REPLAY_STREAMS; i++) {
    const s = Math.floor(at / 1000);
    batch.push(
      log.append(`agent:agent-${i}`, 0, [
        {
          type: 'agent.registered',
          at,
          data: { claimTokenHash: `c${i}`, assertion: { jtiHash: `j${i}`, exp: s + 300, nbf: s } },
        },
        { type: 'agent.assertion_redeemed', at: at + 10, data: { jtiHash: `j${i}` } },
        {
          type: 'agent.claim_started',
          at: at + 20,
          data: { userCodeHash: `u${i}`, email: `p${i}@example.com`, expiresAt: at + 600_000 },
        },
        { type: 'agent.claim_polled', at: at + 30, data: {} },
        { type: 'agent.claim_approved', at: at + 40, data: { userCodeHash: `u${i}` } },
        {
          type: 'agent.claim_polled',
          at: at + 6_000,
          data: { assertion: { jtiHash: `k${i}`, exp: s + 700, nbf: s + 6 } },
        },
      ]),
    );
    if (batch.length === 500) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  const started = performance.now();
  let events = 0;
  let after = 0;
  let current: StoredEvent[] = [];
  for (;;) {
    const page = await log.readAll(after, 10_000);
    if (page.length === 0) break;
    for (const e of page) {
      if (current.length > 0 && current[0].streamId !== e.streamId) {
        if (current[0].streamId.startsWith('agent:')) fold(agentMachine, current);
        current = [];
      }
      current.push(e);
    }
    events += page.length;
    after = page[page.length - 1].sequence;
  }
  if (current.length > 0 && current[0].streamId.startsWith('agent:')) fold(agentMachine, current);
  return events / ((performance.now() - started) / 1000);
}

/**
 * Registrations per second over HTTP against `instances` main origins on the given store (requests
 * alternate between them, sharing one DATA_DIR), and the database transactions each cost.
 */
async function registrations(
  env: Record<string, string>,
  databaseUrl?: string,
  instances = 1,
): Promise<{ perSecond: number; commitsPerRequest?: number; statementsPerRequest?: number }> {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
    await client.end();
  }
  const first = await startChildServer({ env });
  const servers = [
    first,
    ...(await Promise.all(
      Array.from({ length: instances - 1 }, () => startChildServer({ env, dataDir: first.dataDir })),
    )),
  ];
  const agent = new Agent({ connections: HTTP_CONCURRENCY });
  let turn = 0;
  const register = async () => {
    const server = servers[turn++ % servers.length];
    const res = await request(`${server.url}/agentauth/identity`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: '{"type":"anonymous"}',
    });
    await res.body.arrayBuffer();
    if (res.statusCode !== 201) throw new Error(`registration answered ${res.statusCode}`);
  };
  /** Transactions committed and statements run (each a round trip) in the bench database so far. */
  const counters = async () => {
    if (!databaseUrl) return { commits: 0, statements: undefined };
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const commits = Number(
        (await client.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0]
          .xact_commit,
      );
      // pg_stat_statements is preloaded by the test cluster; a server without it gives no statement count.
      const statements = await client
        .query(
          "SELECT sum(calls) AS n FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%'",
        )
        .then(
          (r) => Number(r.rows[0].n),
          () => undefined,
        );
      return { commits, statements };
    } finally {
      await client.end();
    }
  };
  try {
    await concurrentFlows(register, HTTP_CONCURRENCY, 1_000, 0);
    const before = await counters();
    const { done, seconds } = await concurrentFlows(register, HTTP_CONCURRENCY, 4_000, 0);
    // Statistics reach pg_stat_database asynchronously; give them a moment.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const after = await counters();
    const perRequest = (a: number | undefined, b: number | undefined) =>
      a === undefined || b === undefined ? undefined : (a - b) / done;
    return {
      perSecond: done / seconds,
      ...(databaseUrl
        ? {
            commitsPerRequest: (after.commits - before.commits) / done,
            statementsPerRequest: perRequest(after.statements, before.statements),
          }
        : {}),
    };
  } finally {
    await agent.close();
    for (const server of servers) await server.stop();
    rmSync(first.dataDir, { recursive: true, force: true });
  }
}

/**
 * The event log on SQLite and on PostgreSQL in the same run: appends, replay through the event-log
 * interface, and registrations over HTTP through one main origin on each store. On this machine
 * PostgreSQL, the service and the load generator share two cores, so the figures show overhead, not
 * scaling; the bench cluster is the test harness's (loopback, fsync off), so durable-disk figures
 * are lower. Per group commit PostgreSQL costs three round trips (BEGIN, one `portico_append` call
 * for the whole batch, COMMIT) plus one per read-model statement.
 */
const bench: Bench = async () => {
  if (!postgresAvailable) return [{ name: 'PostgreSQL is not installed: store bench skipped', value: 0, unit: '' }];
  const postgres = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-store-'));
  const rows: BenchRow[] = [];
  try {
    const sqlite = new SqliteEventLog(join(dir, 'events.db'));
    const onPg = await PostgresEventLog.open(await postgres.database());
    const sqliteAppends = await appendRates(sqlite);
    const pgAppends = await appendRates(onPg);
    rows.push(
      { name: 'SQLite appends, one at a time (await each)', value: sqliteAppends.sequential, unit: 'appends/s' },
      {
        name: 'PostgreSQL appends, one at a time (await each)',
        value: pgAppends.sequential,
        unit: 'appends/s',
        ratio: { against: 'SQLite', value: pgAppends.sequential / sqliteAppends.sequential },
      },
      { name: 'SQLite appends, 32 in flight (group commit)', value: sqliteAppends.concurrent, unit: 'appends/s' },
      {
        name: 'PostgreSQL appends, 32 in flight (group commit)',
        value: pgAppends.concurrent,
        unit: 'appends/s',
        ratio: { against: 'SQLite', value: pgAppends.concurrent / sqliteAppends.concurrent },
      },
    );
    await sqlite.close();
    await onPg.close();
    const sqliteReplay = new SqliteEventLog(join(dir, 'replay.db'));
    const pgReplay = await PostgresEventLog.open(await postgres.database());
    const replaySqlite = await replayRate(sqliteReplay);
    const replayPg = await replayRate(pgReplay);
    rows.push(
      {
        name: `replay through the interface (readAll + fold), SQLite, ${REPLAY_STREAMS * 6} events`,
        value: replaySqlite,
        unit: 'events/s',
      },
      {
        name: 'same, PostgreSQL',
        value: replayPg,
        unit: 'events/s',
        ratio: { against: 'SQLite', value: replayPg / replaySqlite },
      },
    );
    await sqliteReplay.close();
    await pgReplay.close();
    const onSqlite = await registrations({});
    const pgUrl = await postgres.database();
    const onPostgres = await registrations({ EVENT_STORE: 'postgres', DATABASE_URL: pgUrl }, pgUrl);
    const pgUrl2 = await postgres.database();
    const onTwo = await registrations({ EVENT_STORE: 'postgres', DATABASE_URL: pgUrl2 }, pgUrl2, 2);
    rows.push(
      { name: 'POST /agentauth/identity, one instance on SQLite', value: onSqlite.perSecond, unit: 'req/s' },
      {
        name: 'POST /agentauth/identity, one instance on PostgreSQL',
        value: onPostgres.perSecond,
        unit: 'req/s',
        ratio: { against: 'SQLite', value: onPostgres.perSecond / onSqlite.perSecond },
        note: `${onPostgres.commitsPerRequest?.toFixed(2)} commits per registration (group commit shares them); ${onPostgres.statementsPerRequest?.toFixed(2) ?? '?'} statements (round trips) per registration (pg_stat_statements); test cluster, fsync off`,
      },
      {
        name: 'POST /agentauth/identity, two instances on one PostgreSQL',
        value: onTwo.perSecond,
        unit: 'req/s',
        ratio: { against: 'one instance', value: onTwo.perSecond / onPostgres.perSecond },
        note: `${onTwo.commitsPerRequest?.toFixed(2)} commits per registration; ${onTwo.statementsPerRequest?.toFixed(2) ?? '?'} statements; 2 cores shared by PostgreSQL, both instances and the load generator: overhead, not scaling`,
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await postgres.stop();
  }
  return rows;
};

export default bench;
