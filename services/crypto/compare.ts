import { timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality of two strings as UTF-8 bytes. Lengths are compared in bytes: a string with
 * non-ASCII characters can match another's length in characters and still differ in bytes, and
 * `timingSafeEqual` throws on buffers of unequal length.
 */
export function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
