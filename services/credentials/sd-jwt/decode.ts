import { decodeJwt, decodeProtectedHeader } from 'jose';
import { CheckFailed, ensure } from '../result.ts';
import { parseDisclosure, type Disclosure } from './disclosure.ts';
import { splitSdJwt } from './serialization.ts';
import type { ClaimPath, SdJwtParts } from './types.ts';

export type SdJwtCheck =
  | 'format'
  | 'typ'
  | 'issuer_signature'
  | 'sd_alg'
  | 'disclosure_format'
  | 'duplicate_disclosure'
  | 'duplicate_digest'
  | 'disclosure_unreferenced'
  | 'claim_collision'
  | 'validity'
  | 'iss'
  | 'vct'
  | 'holder_binding'
  | 'kb_jwt'
  | 'kb_signature'
  | 'sd_hash'
  | 'nonce'
  | 'aud'
  | 'kb_freshness';

export interface LocatedDisclosure extends Disclosure {
  /** Where the disclosed value sits in the reconstructed claims. */
  path: ClaimPath;
}

export interface DecodedSdJwt {
  parts: SdJwtParts;
  header: Record<string, unknown>;
  /** The issuer-signed payload as signed (with `_sd` digests). */
  payload: Record<string, unknown>;
  /** The payload with every presented disclosure substituted and digests removed. */
  claims: Record<string, unknown>;
  disclosures: LocatedDisclosure[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses an SD-JWT and rebuilds its claims (RFC 9901 §7.1 steps 3-5), rejecting with a named check:
 * a digest seen twice (`duplicate_digest`), a disclosure given twice (`duplicate_disclosure`), a
 * disclosed name that already exists (`claim_collision`), a disclosure of the wrong shape for where
 * it is referenced (`disclosure_format`), and a disclosure nothing refers to (`disclosure_unreferenced`).
 * It does not check any signature.
 */
export function decodeSdJwt(text: string): DecodedSdJwt {
  let parts: SdJwtParts;
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    parts = splitSdJwt(text);
    header = decodeProtectedHeader(parts.issuerJwt) as Record<string, unknown>;
    payload = decodeJwt(parts.issuerJwt) as Record<string, unknown>;
  } catch (error) {
    throw new CheckFailed('format', `not an SD-JWT: ${(error as Error).message}`);
  }
  const alg = payload._sd_alg ?? 'sha-256';
  ensure(alg === 'sha-256', 'sd_alg', `unsupported _sd_alg ${JSON.stringify(alg)} (only sha-256)`);

  const parsed: Disclosure[] = [];
  for (const encoded of parts.disclosures) {
    try {
      parsed.push(parseDisclosure(encoded));
    } catch (error) {
      throw new CheckFailed('disclosure_format', (error as Error).message);
    }
  }
  const byDigest = new Map<string, Disclosure>();
  for (const d of parsed) {
    ensure(!byDigest.has(d.digest), 'duplicate_disclosure', 'the same disclosure is presented twice');
    byDigest.set(d.digest, d);
  }

  const seen = new Set<string>();
  const located: LocatedDisclosure[] = [];
  const see = (digest: unknown) => {
    ensure(typeof digest === 'string', 'format', 'a digest must be a string');
    ensure(!seen.has(digest), 'duplicate_digest', 'a digest value appears more than once in the payload and disclosures');
    seen.add(digest);
    return byDigest.get(digest);
  };

  const rebuild = (value: unknown, path: ClaimPath): unknown => {
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const element of value) {
        if (isPlainObject(element) && Object.keys(element).length === 1 && '...' in element) {
          const d = see(element['...']);
          if (!d) continue; // undisclosed element or decoy
          ensure(d.name === undefined, 'disclosure_format', 'an object-member disclosure is referenced as an array element');
          const p = [...path, out.length];
          located.push({ ...d, path: p });
          out.push(rebuild(d.value, p));
          continue;
        }
        out.push(rebuild(element, [...path, out.length]));
      }
      return out;
    }
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === '_sd' || (k === '_sd_alg' && path.length === 0)) continue;
        out[k] = rebuild(v, [...path, k]);
      }
      if (value._sd !== undefined) {
        ensure(Array.isArray(value._sd), 'format', '_sd must be an array of digests');
        for (const digest of value._sd) {
          const d = see(digest);
          if (!d) continue; // undisclosed claim or decoy
          ensure(d.name !== undefined, 'disclosure_format', 'an array-element disclosure is referenced from _sd');
          ensure(!Object.hasOwn(out, d.name), 'claim_collision', `disclosed claim "${d.name}" already exists at that level`);
          const p = [...path, d.name];
          located.push({ ...d, path: p });
          out[d.name] = rebuild(d.value, p);
        }
      }
      return out;
    }
    return value;
  };

  const claims = rebuild(payload, []) as Record<string, unknown>;
  const unreferenced = parsed.filter((d) => !located.some((l) => l.digest === d.digest));
  ensure(unreferenced.length === 0, 'disclosure_unreferenced', `${unreferenced.length} disclosure(s) match no digest in the payload (tampered, or a child presented without its parent)`);
  return { parts, header, payload, claims, disclosures: located };
}
