import { createHash, randomBytes, randomInt } from 'node:crypto';

export const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** `length` characters of lowercase RFC 4648 base32, each drawn uniformly (32 divides 256: no bias). */
export const randomBase32 = (length: number) => {
  let out = '';
  for (const byte of randomBytes(length)) out += BASE32[byte & 31];
  return out;
};

/** `length` characters drawn uniformly from `alphabet`. */
export const randomFrom = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
