import { join } from 'node:path';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Config } from '../config.ts';
import type { ProjectionStore } from '../../projections/types.ts';
import type { EventLog } from '../../services/event-log.ts';
import { PostgresEventLog } from './postgres-event-log.ts';
import { PostgresProjectionStore } from './postgres-projection-store.ts';
import { postgresRateLimitStore } from './postgres-rate-limit.ts';
import { SqliteEventLog } from './sqlite-event-log.ts';
import { SqliteProjectionStore } from './sqlite-projection-store.ts';
import { PostgresLiveness } from './postgres-liveness.ts';
import { soleInstance, type InstanceLiveness } from '../../services/instances.ts';
import { randomToken } from '../../services/crypto/random.ts';

/** The main origin's event log and the store of its read models, as EVENT_STORE chooses. */
export interface EventStore {
  log: EventLog;
  projections: ProjectionStore;
  /** Where rate-limit counters live when instances share them; absent: each process counts alone. */
  rateLimits?: FastifyRateLimitStoreCtor;
  /** Which instances sharing this log are running (this process only, on SQLite). */
  liveness: InstanceLiveness;
}

export async function openEventStore(
  config: Pick<Config, 'dataDir' | 'eventStore'>,
  file = 'main.db',
): Promise<EventStore> {
  const self = randomToken(12);
  if (config.eventStore.kind === 'postgres') {
    const log = await PostgresEventLog.open(config.eventStore.url);
    return {
      log,
      projections: new PostgresProjectionStore(log),
      rateLimits: postgresRateLimitStore(log),
      liveness: await PostgresLiveness.open(config.eventStore.url, self, log.pool),
    };
  }
  const log = new SqliteEventLog(join(config.dataDir, file));
  return { log, projections: new SqliteProjectionStore(log), liveness: soleInstance(self) };
}
