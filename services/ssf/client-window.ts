import type { Clock } from '../clock.ts';
import { oauthError } from '../errors.ts';

/**
 * A per-client limit on the Shared Signals API (issue 45 item 36): at most `max` calls a minute per
 * OAuth client, whatever addresses they come from (the per-address limit counts each address apart).
 * Fixed one-minute windows, in this process; a client's key is its verified client id.
 */
export class PerClientWindow {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly max: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one call of `client`; over the limit, 429 rate_limited saying when to retry (no Retry-After). */
  take(client: string): void {
    const now = this.clock.now();
    let window = this.windows.get(client);
    if (!window || now - window.start >= 60_000) {
      if (this.windows.size > 10_000) this.forgetOld(now);
      window = { start: now, count: 0 };
      this.windows.set(client, window);
    }
    if (window.count >= this.max)
      throw oauthError(
        'rate_limited',
        `More than ${this.max} Shared Signals calls a minute from this client; try again in ${Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000))} seconds`,
      );
    window.count += 1;
  }

  private forgetOld(now: number): void {
    for (const [client, window] of this.windows) if (now - window.start >= 60_000) this.windows.delete(client);
  }
}
