import type { FastifyRateLimitOptions, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { WindowCounter } from '../../services/ssf/client-window.ts';

/** A window counter on the shared rate-limit store (PostgreSQL's `rate_limits`): every instance counts alike. */
export function sharedWindowCounter(Store: FastifyRateLimitStoreCtor): WindowCounter {
  const store = new Store({} as FastifyRateLimitOptions);
  return {
    count: (key, windowMs) =>
      new Promise((resolve, reject) =>
        store.incr(
          key,
          (error, result) =>
            error || !result
              ? reject(error ?? new Error('no count'))
              : resolve({ current: result.current, resetInMs: result.ttl }),
          windowMs,
          Number.MAX_SAFE_INTEGER,
        ),
      ),
  };
}
