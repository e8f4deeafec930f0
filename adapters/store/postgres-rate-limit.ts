import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { PostgresEventLog } from './postgres-event-log.ts';

/** One statement counts a request in the caller's fixed window, starting a new window once the old one ended. */
const COUNT = `INSERT INTO rate_limits (key, window_start, count) VALUES ($1, $2, 1)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN rate_limits.window_start + $3 <= $2 THEN 1 ELSE rate_limits.count + 1 END,
    window_start = CASE WHEN rate_limits.window_start + $3 <= $2 THEN $2 ELSE rate_limits.window_start END
  RETURNING count, window_start`;

/** Every this many counts, windows that ended are deleted. */
const SWEEP_EVERY = 1_000;

/**
 * A `@fastify/rate-limit` store in the event log's PostgreSQL database, so every instance counts
 * against the same per-address window (table `rate_limits`, created with the log's schema) (the plugin's own store counts per process). A lost database
 * fails the request with the log's 503 `temporarily_unavailable`, like any other read.
 */
export function postgresRateLimitStore(log: PostgresEventLog, now: () => number = Date.now): FastifyRateLimitStoreCtor {
  let counted = 0;
  const sweep = (before: number) => void log.query('DELETE FROM rate_limits WHERE window_start < $1', [before]).catch(() => undefined);
  class PostgresRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const at = now();
      if (++counted % SWEEP_EVERY === 0) sweep(at - timeWindow);
      log.query<{ count: number; window_start: string }>(COUNT, [key, at, timeWindow]).then(
        ({ rows: [row] }) => callback(null, { current: row.count, ttl: Math.max(0, Number(row.window_start) + timeWindow - at) }),
        (error: Error) => callback(error),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  }
  return PostgresRateLimitStore as unknown as FastifyRateLimitStoreCtor;
}
