import { createHmac } from 'node:crypto';

/**
 * A keyed fingerprint (HMAC-SHA-256 under a server secret, 22 base64url characters): stable for one
 * value, so two mentions correlate, yet no dictionary turns it back into the value without the key.
 */
export const keyedFingerprint = (secret: Uint8Array, value: string): string =>
  createHmac('sha256', secret).update(value).digest('base64url').slice(0, 22);
