import { createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';

const WINDOW_MS = 60_000;

/**
 * Server-provided DPoP nonces (RFC 9449 section 8): an HMAC of the current one-minute window, so no
 * state is kept; the current and the previous window's nonce are accepted. With the server secret from
 * the key ring, every instance sharing that key ring issues and accepts the same nonces; `purpose`
 * keeps the sources apart (an authorization server's nonce is not a resource server's).
 */
export class DPoPNonces {
  constructor(
    private readonly clock: Clock,
    private readonly secret: Uint8Array = randomBytes(32),
    private readonly purpose = '',
  ) {}

  private forWindow(window: number): string {
    return createHmac('sha256', this.secret).update(`${this.purpose}:${window}`).digest('base64url').slice(0, 32);
  }

  current(): string {
    return this.forWindow(Math.floor(this.clock.now() / WINDOW_MS));
  }

  accepts(nonce: unknown): boolean {
    const window = Math.floor(this.clock.now() / WINDOW_MS);
    return typeof nonce === 'string' && (nonce === this.forWindow(window) || nonce === this.forWindow(window - 1));
  }
}
