import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const replay = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/replay.ts', join(server.dataDir, 'main.db'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });

describe('npm run replay', () => {
  it('prints a run stream and rebuilds every kind of actor (runs, codes, refresh families, interactions, single-use values) consistently', async () => {
    const run = (await (await fetch(`${server.url}/api/protocols/oauth2/demo/refresh-token`, json({}))).json()) as any;
    await fetch(`${server.url}/api/protocols/oauth2/demo/dpop-bound-token`, json({}));
    const one = replay('--stream', `run:${run.run_id}`);
    expect(one.status).toBe(0);
    expect(one.stdout).toContain(`run:${run.run_id}`);
    expect(one.stdout).toContain('run.started');
    expect(one.stdout).toMatch(/run\.finished\s+-> "succeeded"/);
    const all = replay('--json');
    expect(all.status).toBe(0);
    const report = JSON.parse(all.stdout);
    const kinds = new Set(report.streams.map((s: any) => s.stream.split(':')[0]));
    for (const kind of ['run', 'code', 'refresh', 'interaction', 'once']) expect(kinds.has(kind), kind).toBe(true);
    expect(report.streams.filter((s: any) => s.verdict === 'no machine')).toEqual([]);
    expect(report.differing).toEqual([]);
    const family = report.streams.find((s: any) => s.stream.startsWith('refresh:'));
    expect(family.state).toBe('revoked');
    expect(JSON.stringify(report)).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/); // no whole JWT in the log
  });
});
