import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { killUnderLoadThenRedeemEach } from '../../support/child-main.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'portico-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('crash safety', () => {
  it('every acknowledged registration survives SIGKILL, redeems exactly once after restart, and the log replays clean', async () => {
    const acknowledged = await killUnderLoadThenRedeemEach({ DATA_DIR: dataDir }, 150);

    const db = join(dataDir, 'main.db');
    const replay = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', db, '--quiet'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(replay.status, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/0 differing/);

    // A snapshot that disagrees with the log is named, and the exit is non-zero.
    const victim = acknowledged[0].agent_id;
    const raw = new Database(db);
    raw
      .prepare("UPDATE snapshots SET state = json_set(state, '$.value', 'revoked') WHERE stream_id = ?")
      .run(`agent:${victim}`);
    raw.close();
    const broken = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', db, '--quiet'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain(`agent:${victim}`);
    expect(broken.stdout).toMatch(/1 differing: agent:/);
  }, 120_000);
});
