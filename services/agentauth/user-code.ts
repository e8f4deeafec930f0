import { randomFrom, sha256 } from '../crypto/random.ts';

/** Consonants only, so no word can be spelled and no letter is mistaken for a digit (RFC 8628 6.1). */
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

export const newUserCode = () => {
  const raw = randomFrom(ALPHABET, 8);
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
};

/** What a person types, made comparable: trimmed, upper case, spaces and dashes removed. */
export const normalizeUserCode = (input: string) => input.trim().toUpperCase().replace(/[\s-]+/g, '');

export const userCodeHash = (input: string) => sha256(`user-code:${normalizeUserCode(input)}`);
