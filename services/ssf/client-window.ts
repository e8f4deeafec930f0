import type { Clock } from '../clock.ts';
import { oauthError } from '../errors.ts';

/** Counts calls per key in fixed windows; instances sharing a database share the counts (adapters/store). */
export interface WindowCounter {
  /** Counts one call of `key` in its current window of `windowMs`: the calls so far, this one included, and when the window ends. */
  count(key: string, windowMs: number): Promise<{ current: number; resetInMs: number }>;
}

/** Fixed windows in this process's memory: the counter of a deployment that runs one instance. */
export function memoryWindowCounter(clock: Clock): WindowCounter {
  const windows = new Map<string, { start: number; count: number }>();
  const forgetOld = (now: number, windowMs: number) => {
    for (const [key, window] of windows) if (now - window.start >= windowMs) windows.delete(key);
  };
  return {
    async count(key, windowMs) {
      const now = clock.now();
      let window = windows.get(key);
      if (!window || now - window.start >= windowMs) {
        if (windows.size > 10_000) forgetOld(now, windowMs);
        window = { start: now, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      return { current: window.count, resetInMs: window.start + windowMs - now };
    },
  };
}

/**
 * A per-client limit on the Shared Signals API (issue 45 item 36): at most `max` calls a minute per
 * OAuth client, whatever addresses they come from (the per-address limit counts each address apart).
 * Fixed one-minute windows; a client's key is its verified client id. On PostgreSQL the windows are the
 * per-address limit's table, so every instance counts against the same window.
 */
export class PerClientWindow {
  constructor(
    private readonly max: number,
    private readonly counter: WindowCounter,
  ) {}

  /** Counts one call of `client`; over the limit, 429 rate_limited saying when to retry (no Retry-After). */
  async take(client: string): Promise<void> {
    const { current, resetInMs } = await this.counter.count(`ssf-client:${client}`, 60_000);
    if (current > this.max)
      throw oauthError(
        'rate_limited',
        `More than ${this.max} Shared Signals calls a minute from this client; try again in ${Math.max(1, Math.ceil(resetInMs / 1000))} seconds`,
      );
  }
}
