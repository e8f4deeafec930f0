import { createHmac } from 'node:crypto';
import { randomFrom } from '../crypto/random.ts';

/** Consonants only, so no word can be spelled and no letter is mistaken for a digit (RFC 8628 6.1). */
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

export const newUserCode = () => {
  const raw = randomFrom(ALPHABET, 8);
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
};

/** What a person types, made comparable: trimmed, upper case, spaces and dashes removed. */
const normalizeUserCode = (input: string) =>
  input
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '');

/**
 * What the log keeps of a user code: an HMAC under a server secret. The code space is small (20^8),
 * so a plain hash in the log could be reversed offline by trying every code; without the secret it cannot.
 */
export const userCodeHasher = (secret: Uint8Array) => (input: string) =>
  createHmac('sha256', secret).update(normalizeUserCode(input)).digest('base64url');
