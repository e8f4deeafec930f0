import { hash, randomFillSync, randomInt } from 'node:crypto';

/** SHA-256 of UTF-8 text, base64url (the one-shot `hash` skips building a Hash object). */
export const sha256 = (value: string) => hash('sha256', value, 'base64url');

// CSPRNG output is drawn in blocks and each byte handed out once: one system call serves many tokens.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/** `n` fresh random bytes (a copy; never shared with another caller). */
export function randomBytes(n: number): Buffer {
  if (n > POOL_SIZE) return randomFillSync(Buffer.alloc(n));
  if (offset + n > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const out = Buffer.from(pool.subarray(offset, offset + n));
  offset += n;
  return out;
}

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
// The same 32 characters in byte order, so that encoded numbers sort as the numbers do.
const BASE32_SORTED = '234567abcdefghijklmnopqrstuvwxyz';

/** `length` characters of lowercase RFC 4648 base32, each drawn uniformly (32 divides 256: no bias). */
export const randomBase32 = (length: number) => {
  let out = '';
  for (const byte of randomBytes(length)) out += BASE32[byte & 31];
  return out;
};

/** The milliseconds `ms` as `digits` characters of `sortedAlphabet` (in byte order), so the text sorts as the time does. */
function sortableTime(ms: number, sortedAlphabet: string, digits: number): string {
  const base = sortedAlphabet.length;
  let time = '';
  for (let t = Math.floor(ms), i = 0; i < digits; i++, t = Math.floor(t / base)) time = sortedAlphabet[t % base] + time;
  return time;
}

/**
 * 16 base32 characters: 9 for the milliseconds since 1970 (good for a thousand years), 7 random. Ids
 * made close in time sort close together, so a burst of new rows touches few index pages.
 */
export const timeOrderedBase32 = (ms: number): string => sortableTime(ms, BASE32_SORTED, 9) + randomBase32(7);

// The 64 base64url characters in byte order.
const BASE64URL_SORTED = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';

/**
 * An unguessable base64url token that sorts by time: 8 characters of the milliseconds since 1970
 * (good for eight thousand years), then `bytes` random bytes. Rows keyed by such tokens and written
 * close in time land next to each other in an index, so a burst touches few pages.
 */
export const timeOrderedToken = (ms: number, bytes: number): string =>
  sortableTime(ms, BASE64URL_SORTED, 8) + randomToken(bytes);

/** `length` characters drawn uniformly from `alphabet`. */
export const randomFrom = (alphabet: string, length: number) =>
  Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
