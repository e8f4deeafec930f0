import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { SqliteProjectionStore } from '../../../adapters/store/sqlite-projection-store.ts';
import { projectionPortContract, type ProjectionHarness } from '../../support/projection-port-contract.ts';

function sqliteHarness(dir = mkdtempSync(join(tmpdir(), 'portico-projection-'))): () => Promise<ProjectionHarness> {
  return async () => {
    const log = new SqliteEventLog(join(dir, 'main.db'));
    return {
      log,
      store: new SqliteProjectionStore(log),
      reopen: async () => {
        await log.close();
        return sqliteHarness(dir)();
      },
      close: async () => {
        await log.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

projectionPortContract('SQLite', () => sqliteHarness()());
