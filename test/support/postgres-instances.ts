import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startMainServer, type TestServer } from './main-server.ts';
import { postgresAvailable, startPostgres, type TestPostgres } from './postgres.ts';

/**
 * Two main origins in this process on one fresh PostgreSQL database and one shared DATA_DIR (so they
 * sign with the same keys), started before the file's tests and closed after them. Filled in
 * `beforeAll`; empty where PostgreSQL is missing (the suites skip then, and CI refuses to).
 */
export function useTwoInstancesOnPostgres(extra: Record<string, string> = {}): TestServer[] {
  const instances: TestServer[] = [];
  let postgres: TestPostgres | undefined;
  let dataDir: string | undefined;
  beforeAll(async () => {
    if (!postgresAvailable) return;
    postgres = await startPostgres();
    const env = { ...extra, EVENT_STORE: 'postgres', DATABASE_URL: await postgres.database() };
    dataDir = mkdtempSync(join(tmpdir(), 'portico-pg-instances-'));
    instances.push(await startMainServer({ env, dataDir }), await startMainServer({ env, dataDir }));
  }, 60_000);
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await postgres?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return instances;
}
