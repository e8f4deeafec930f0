import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { registerUntilKilled, startChildMain } from '../../support/child-main.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const dataDir = mkdtempSync(join(tmpdir(), 'portico-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('crash safety', () => {
  it('every acknowledged registration survives SIGKILL, redeems exactly once after restart, and the log replays clean', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await startChildMain(port, { DATA_DIR: dataDir });
    const acknowledged: Array<{ agent_id: string; identity_assertion: string }> = [];
    const failures: string[] = [];
    let stop = false;
    // Four concurrent writers register until the process dies under them.
    const writers = registerUntilKilled(base, acknowledged, failures, () => stop);
    while (acknowledged.length < 150 && failures.length < 4) await new Promise((r) => setTimeout(r, 5));
    expect(failures).toEqual([]);
    const exited = new Promise((r) => first.once('exit', r));
    first.kill('SIGKILL');
    stop = true;
    await writers;
    await exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const second = await startChildMain(port, { DATA_DIR: dataDir });
    try {
      for (const reg of acknowledged) {
        const once = await fetch(`${base}/agentauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: reg.identity_assertion }) });
        expect(once.status, `first redemption of ${reg.agent_id}`).toBe(200);
        const twice = await fetch(`${base}/agentauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: reg.identity_assertion }) });
        expect(twice.status).toBe(400);
      }
    } finally {
      second.kill('SIGTERM');
      await new Promise((r) => second.once('exit', r));
    }
    expect(second.exitCode ?? 0).toBe(0);

    const db = join(dataDir, 'main.db');
    const replay = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', db, '--quiet'], { cwd: ROOT, encoding: 'utf8' });
    expect(replay.status, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/0 differing/);

    // A snapshot that disagrees with the log is named, and the exit is non-zero.
    const victim = acknowledged[0].agent_id;
    const raw = new Database(db);
    raw.prepare("UPDATE snapshots SET state = json_set(state, '$.value', 'revoked') WHERE stream_id = ?").run(`agent:${victim}`);
    raw.close();
    const broken = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', db, '--quiet'], { cwd: ROOT, encoding: 'utf8' });
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain(`agent:${victim}`);
    expect(broken.stdout).toMatch(/1 differing: agent:/);
  }, 120_000);
});
