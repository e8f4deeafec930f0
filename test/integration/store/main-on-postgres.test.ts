import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killUnderLoadThenRedeemEach } from '../../support/child-main.ts';
import { json, startMainServer } from '../../support/main-server.ts';
import { postgresAvailable, startPostgres, type TestPostgres } from '../../support/postgres.ts';

/**
 * Issue 20: the main origin with EVENT_STORE=postgres on a real PostgreSQL (a temporary cluster, a
 * fresh database per case): whole flows whose state is event-sourced (read models included), the
 * crash test (SIGKILL under load, single redemption after restart), and `npm run replay` on it.
 */
const ROOT = new URL('../../../', import.meta.url).pathname;
let server: TestPostgres;
beforeAll(async () => {
  if (postgresAvailable) server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const replay = (url: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', url, '--quiet'], {
    cwd: ROOT,
    encoding: 'utf8',
  });

describe.skipIf(!postgresAvailable)('the main origin on PostgreSQL', () => {
  it('runs agent, OAuth, OID4VCI and OID4VP flows with its read models in PostgreSQL, and keeps them across a restart', async () => {
    const url = await server.database();
    const env = { EVENT_STORE: 'postgres', DATABASE_URL: url };
    const main = await startMainServer({ env });
    const run = async (protocol: string, flow: string) => {
      const res = await fetch(`${main.url}/api/protocols/${protocol}/demo/${flow}`, json({}));
      const body = (await res.json()) as Record<string, any>;
      expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(201);
      expect(body.status, body.error).toBe('succeeded');
      return body;
    };
    let runIds: string[];
    try {
      const runs = [
        await run('agentauth', 'register-and-claim'),
        await run('oauth2', 'refresh-token'),
        await run('oid4vci', 'pre-authorized-code'),
        await run('oid4vp', 'dcql-direct-post'),
      ];
      runIds = runs.map((r) => r.run_id);
      const health = (await (await fetch(`${main.url}/health`)).json()) as Record<string, any>;
      expect(health.event_log.head_sequence).toBeGreaterThan(20);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        // The read models live in PostgreSQL: the claimed agent, the revoked family's access tokens.
        expect(
          Number((await db.query("SELECT count(*) AS n FROM agent_registry WHERE standing = 'claimed'")).rows[0].n),
        ).toBe(1);
        expect(Number((await db.query('SELECT count(*) AS n FROM revoked_access_tokens')).rows[0].n)).toBeGreaterThan(
          0,
        );
      } finally {
        await db.end();
      }
    } finally {
      await main.close();
    }
    const again = await startMainServer({ env });
    try {
      for (const id of runIds)
        expect((await (await fetch(`${again.url}/api/runs/${id}`)).json()) as Record<string, any>).toMatchObject({
          run_id: id,
          status: 'succeeded',
        });
    } finally {
      await again.close();
    }
    const replayed = replay(url);
    expect(replayed.status, replayed.stdout.slice(-500) + replayed.stderr).toBe(0);
    expect(replayed.stdout).toMatch(/ 0 differing/);
  }, 120_000);

  it('crash safety: every acknowledged registration survives SIGKILL, redeems exactly once after restart, and the log replays clean', async () => {
    const url = await server.database();
    const dataDir = mkdtempSync(join(tmpdir(), 'portico-pg-crash-')); // keys.json: the restart must sign with the same keys
    const env = { EVENT_STORE: 'postgres', DATABASE_URL: url, DATA_DIR: dataDir };
    const acknowledged = await killUnderLoadThenRedeemEach(env, 100);
    const clean = replay(url);
    expect(clean.status, clean.stdout.slice(-500) + clean.stderr).toBe(0);

    // A snapshot forged in the database is named by the replay, which exits 1.
    const victim = acknowledged[0].agent_id;
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const forged = await db.query(
        "UPDATE snapshots SET state = jsonb_set(state::jsonb, '{value}', '\"revoked\"')::json WHERE stream_id = $1",
        [`agent:${victim}`],
      );
      expect(forged.rowCount).toBe(1);
    } finally {
      await db.end();
    }
    const broken = replay(url);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(new RegExp(`1 differing: agent:${victim}`));
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('npm run migrate-log copies a SQLite log into PostgreSQL with every sequence kept and every fold checked; the main origin then serves it', async () => {
    const sqliteMain = await startMainServer();
    const res = await fetch(`${sqliteMain.url}/api/protocols/oid4vci/demo/pre-authorized-code`, json({}));
    const ran = (await res.json()) as Record<string, any>;
    expect(ran.status).toBe('succeeded');
    await (await fetch(`${sqliteMain.url}/api/protocols/agentauth/demo/register-and-claim`, json({}))).json();
    const file = `${sqliteMain.dataDir}/main.db`;
    await sqliteMain.close({ keepData: true });
    const url = await server.database();
    const migrate = (target: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/migrate-log.ts', file, target], {
        cwd: ROOT,
        encoding: 'utf8',
      });
    const migrated = migrate(url);
    expect(migrated.status, migrated.stdout + migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/stream\(s\), \d+ event\(s\) copied, 0 differing/);
    expect(migrate(url).status).toBe(2); // never into a log that already holds events
    const onPg = await startMainServer({ env: { EVENT_STORE: 'postgres', DATABASE_URL: url } });
    try {
      expect((await (await fetch(`${onPg.url}/api/runs/${ran.run_id}`)).json()) as Record<string, any>).toMatchObject({
        run_id: ran.run_id,
        status: 'succeeded',
      });
    } finally {
      await onPg.close();
    }
    const { rmSync } = await import('node:fs');
    rmSync(sqliteMain.dataDir, { recursive: true, force: true });
    expect(replay(url).status).toBe(0);
  }, 120_000);

  it("PostgreSQL restarting: requests meanwhile get 503 temporarily_unavailable (never a 500), then the service carries on, and commits reach the other instance's subscribers again", async () => {
    if (!server.restart) return; // a server this harness did not start is not restarted
    const url = await server.database();
    const main = await startMainServer({ env: { EVENT_STORE: 'postgres', DATABASE_URL: url } });
    const { PostgresEventLog } = await import('../../../adapters/store/postgres-event-log.ts');
    const other = await PostgresEventLog.open(url);
    const heard: number[] = [];
    other.onCommit((events) => heard.push(...events.map((e) => e.sequence)));
    const register = () =>
      fetch(`${main.url}/agentauth/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"type":"anonymous"}',
      });
    try {
      expect((await register()).status).toBe(201);
      await server.restart();
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        const res = await register();
        const body = (await res.json()) as Record<string, unknown>;
        statuses.push(res.status);
        if (res.status === 503) expect(body.error).toBe('temporarily_unavailable');
        if (res.status === 201) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(
        statuses.every((s) => s === 201 || s === 503),
        statuses.join(','),
      ).toBe(true);
      expect(statuses.at(-1)).toBe(201);
      const head = (await (await fetch(`${main.url}/health`)).json()) as Record<string, any>;
      for (let i = 0; i < 100 && (heard.at(-1) ?? 0) < head.event_log.head_sequence; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard.at(-1)).toBe(head.event_log.head_sequence);
    } finally {
      await other.close();
      await main.close();
    }
  }, 60_000);
});
