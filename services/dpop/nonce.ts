import { createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';

const WINDOW_MS = 60_000;

/**
 * Server-provided DPoP nonces (RFC 9449 section 8): an HMAC of the current one-minute window, so no
 * state is kept; the current and the previous window's nonce are accepted.
 */
export class DPoPNonces {
  private readonly secret = randomBytes(32);
  constructor(private readonly clock: Clock) {}

  private forWindow(window: number): string {
    return createHmac('sha256', this.secret).update(String(window)).digest('base64url').slice(0, 32);
  }

  current(): string {
    return this.forWindow(Math.floor(this.clock.now() / WINDOW_MS));
  }

  accepts(nonce: unknown): boolean {
    const window = Math.floor(this.clock.now() / WINDOW_MS);
    return typeof nonce === 'string' && (nonce === this.forWindow(window) || nonce === this.forWindow(window - 1));
  }
}
