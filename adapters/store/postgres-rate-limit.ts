import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { PostgresEventLog } from './postgres-event-log.ts';

type Counted = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * One statement counts every request of a batch in its caller's fixed window (one row per key, `n`
 * requests added at once), starting a new window once the old one ended.
 */
const COUNT = `INSERT INTO rate_limits (key, window_start, count)
    SELECT k, $2, n FROM unnest($1::text[], $3::int[]) AS t(k, n)
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN rate_limits.window_start + $4 <= $2 THEN excluded.count ELSE rate_limits.count + excluded.count END,
    window_start = CASE WHEN rate_limits.window_start + $4 <= $2 THEN $2 ELSE rate_limits.window_start END
  RETURNING key, count, window_start`;

/** Every this many batches, windows that ended are deleted. */
const SWEEP_EVERY = 500;

/**
 * A `@fastify/rate-limit` store in the event log's PostgreSQL database (table `rate_limits`, created
 * with the log's schema), so every instance counts against the same per-address window; the plugin's
 * own store counts per process. Requests that arrive while a count is in flight are counted together
 * in the next statement (one round trip for the batch, as the log's group commit does), each told its
 * own position in the window. A lost database fails the request with the log's 503
 * `temporarily_unavailable`, like any other read.
 */
export function postgresRateLimitStore(log: PostgresEventLog, now: () => number = Date.now): FastifyRateLimitStoreCtor {
  let pending = new Map<number, Map<string, Counted[]>>();
  let flushing = false;
  let batches = 0;

  const countBatch = async (timeWindow: number, waiting: Map<string, Counted[]>) => {
    const at = now();
    if (++batches % SWEEP_EVERY === 0)
      void log.query('DELETE FROM rate_limits WHERE window_start < $1', [at - timeWindow]).catch(() => undefined);
    const keys = [...waiting.keys()];
    try {
      const { rows } = await log.query<{ key: string; count: number; window_start: string }>(COUNT, [
        keys,
        at,
        keys.map((k) => waiting.get(k)!.length),
        timeWindow,
      ]);
      for (const row of rows) {
        const callbacks = waiting.get(row.key)!;
        const ttl = Math.max(0, Number(row.window_start) + timeWindow - at);
        callbacks.forEach((counted, i) => counted(null, { current: row.count - (callbacks.length - 1 - i), ttl }));
      }
    } catch (error) {
      for (const callbacks of waiting.values()) for (const counted of callbacks) counted(error as Error);
    }
  };

  const flush = async () => {
    try {
      while (pending.size > 0) {
        const batch = pending;
        pending = new Map();
        for (const [timeWindow, waiting] of batch) await countBatch(timeWindow, waiting);
      }
    } finally {
      flushing = false;
    }
  };

  class PostgresRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, counted: Counted, timeWindow: number): void {
      let byKey = pending.get(timeWindow);
      if (!byKey) pending.set(timeWindow, (byKey = new Map()));
      const callbacks = byKey.get(key);
      if (callbacks) callbacks.push(counted);
      else byKey.set(key, [counted]);
      if (!flushing) {
        flushing = true;
        setImmediate(() => void flush());
      }
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  }
  return PostgresRateLimitStore;
}
