import { randomBytes } from '../../crypto/random.ts';
import { MAX_NESTING, withinNesting } from '../../untrusted/depth.ts';
import { isPrototypeName } from '../../untrusted/keys.ts';
import { b64url, sha256, sha256Base64url } from '../bytes.ts';

export interface Disclosure {
  /** The base64url disclosure exactly as it appears in the SD-JWT. */
  encoded: string;
  /** base64url(SHA-256(ASCII(encoded))), the value the payload refers to. */
  digest: string;
  salt: string;
  /** Absent for array element disclosures. */
  name?: string;
  value: unknown;
}

/** The digest of a disclosure (or any base64url string) with `_sd_alg` sha-256. */
const disclosureDigest = (encoded: string) => sha256Base64url(encoded);

/** A fresh salt: 128 bits, base64url (RFC 9901 §9.3 recommends at least 128 bits). */
const newSalt = () => randomBytes(16).toString('base64url');

export function createDisclosure(name: string | undefined, value: unknown, salt = newSalt()): Disclosure {
  const array = name === undefined ? [salt, value] : [salt, name, value];
  const encoded = b64url(JSON.stringify(array));
  return { encoded, digest: disclosureDigest(encoded), salt, ...(name === undefined ? {} : { name }), value };
}

/** A decoy digest: the digest of random bytes, indistinguishable from a real one. */
export const decoyDigest = () => b64url(sha256(randomBytes(32)));

/** Parses one disclosure; throws with a plain reason when it is not `[salt, name, value]` or `[salt, value]`. */
export function parseDisclosure(encoded: string): Disclosure {
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) throw new Error('a disclosure must be base64url');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw new Error('a disclosure is not base64url-encoded JSON');
  }
  if (!Array.isArray(parsed) || (parsed.length !== 2 && parsed.length !== 3) || typeof parsed[0] !== 'string')
    throw new Error('a disclosure must be [salt, name, value] or [salt, value]');
  if (!withinNesting(parsed)) throw new Error(`a disclosure must not nest deeper than ${MAX_NESTING} levels`);
  if (parsed.length === 3) {
    if (typeof parsed[1] !== 'string') throw new Error('a disclosure name must be a string');
    if (parsed[1] === '_sd' || parsed[1] === '...' || isPrototypeName(parsed[1]))
      throw new Error(`a disclosure must not be named ${parsed[1]}`);
    return { encoded, digest: disclosureDigest(encoded), salt: parsed[0], name: parsed[1], value: parsed[2] };
  }
  return { encoded, digest: disclosureDigest(encoded), salt: parsed[0], value: parsed[1] };
}
