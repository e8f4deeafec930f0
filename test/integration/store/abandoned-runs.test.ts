import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { postgresAvailable, startPostgres, type TestPostgres } from '../../support/postgres.ts';

// Issue 46 §4: a stepped run's paused request lives in the memory of the instance that started it. When that
// instance stops, another one sharing the log ends the run as interrupted at once, with the reason, instead
// of showing it paused until the 10-minute pause limit; while it runs, the others leave its runs alone.
let postgres: TestPostgres | undefined;
let dataDir: string;
let first: TestServer;
let second: TestServer;
let firstClosed = false;
beforeAll(async () => {
  if (!postgresAvailable) return;
  postgres = await startPostgres();
  const env = { EVENT_STORE: 'postgres', DATABASE_URL: await postgres.database() };
  dataDir = mkdtempSync(join(tmpdir(), 'portico-abandoned-'));
  [first, second] = [await startMainServer({ env, dataDir }), await startMainServer({ env, dataDir })];
}, 60_000);
afterAll(async () => {
  if (!firstClosed) await first?.close();
  await second?.close();
  await postgres?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

type Json = Record<string, any>;
const stepped = async (server: TestServer) => {
  const res = await exchange(server.url, '/api/protocols/oauth2/demo/client-credentials', json({ mode: 'step' }));
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(202);
  return res.body as Json;
};
const step = (server: TestServer, run: Json) =>
  exchange(server.url, `/api/runs/${run.run_id}/step`, json({}, { authorization: `Bearer ${run.run_token}` }));

describe.skipIf(!postgresAvailable)('runs whose instance stopped', () => {
  it('while the instance that holds a paused run lives, the other shows it paused and refuses to step it', async () => {
    const run = await stepped(first);
    const seen = await exchange(second.url, `/api/runs/${run.run_id}`, {});
    expect(seen.body.status).toBe('paused');
    const refused = await step(second, run);
    expect(refused.status).toBe(409);
    expect(refused.body.error_description).toContain('another instance');
    // Its own instance steps it on.
    expect((await step(first, run)).body.status).toBe('paused');
  });

  it('when that instance stops, the other ends its paused run as interrupted at once, naming why', async () => {
    const run = await stepped(first);
    const other = await stepped(first);
    await first.close();
    firstClosed = true;

    const read = await exchange(second.url, `/api/runs/${run.run_id}`, {});
    expect(read.body.status).toBe('interrupted');
    const events = (await exchange(second.url, `/api/streams/run:${run.run_id}/export`, {})).body.events as Json[];
    const interrupted = events.find((e) => e.type === 'run.interrupted')!;
    expect(interrupted.data.reason).toMatch(/instance that held this run \(.+\) stopped/);

    // A command meets the same end: 409, interrupted, and nothing else is appended after it.
    const refused = await step(second, other);
    expect(refused.status).toBe(409);
    expect(refused.body.error_description).toContain('interrupted');
    expect((await exchange(second.url, `/api/runs/${other.run_id}`, {})).body.status).toBe('interrupted');

    // The second instance's own runs are untouched.
    const own = await stepped(second);
    expect((await exchange(second.url, `/api/runs/${own.run_id}`, {})).body.status).toBe('paused');
  });
});
