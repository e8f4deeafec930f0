import type { JWK } from 'jose';
import { arrayOf, isJsonObject } from './json.ts';

/** RFC 7517 members that are strings whenever present. */
const STRING_MEMBERS = ['kty', 'kid', 'use', 'alg', 'crv', 'x', 'y', 'n', 'e', 'd'] as const;

/** A JWK as RFC 7517 §4 shapes it: a `kty`, and its string members strings (the key itself is judged on import). */
const isJwk = (value: unknown): value is JWK =>
  isJsonObject(value) &&
  typeof value.kty === 'string' &&
  STRING_MEMBERS.every((name) => value[name] === undefined || typeof value[name] === 'string');

/** The JWKs of a JWK Set's `keys` (RFC 7517 §5); members that are not JWKs are left out. */
export const jwksKeys = (set: unknown): JWK[] => arrayOf(isJsonObject(set) ? set.keys : undefined).filter(isJwk);
