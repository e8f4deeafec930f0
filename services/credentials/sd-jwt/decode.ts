import { decodeJwtClaims, decodeJwtHeader } from '../../crypto/decode-jwt.ts';
import { MAX_NESTING } from '../../untrusted/depth.ts';
import { isPrototypeName, nullRecord } from '../../untrusted/keys.ts';
import { CheckFailed, CheckTrail } from '../result.ts';
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

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export interface RebuiltClaims {
  /** The payload with every referenced disclosure substituted and digests removed. */
  claims: Record<string, unknown>;
  /** The referenced disclosures, in the order they were substituted, with where they landed. */
  disclosures: LocatedDisclosure[];
  /** Disclosures no digest refers to (always empty in strict mode, which rejects them). */
  unreferenced: Disclosure[];
}

/**
 * Rebuilds claims from an issuer payload and parsed disclosures (RFC 9901 §7.1 steps 3-5).
 * Both modes reject a disclosure given twice (`duplicate_disclosure`), a digest that resolves to a
 * disclosure twice (`duplicate_digest`) and a disclosed name that already exists (`claim_collision`).
 * `strict` (verification) also rejects repeated undisclosed digests, malformed `_sd`, disclosures
 * of the wrong kind for where they are referenced and unreferenced disclosures. `lenient` (for
 * tools that show problems, such as the looking glass) skips those and reports the unreferenced ones.
 */
export function rebuildClaims(
  payload: Record<string, unknown>,
  parsed: Disclosure[],
  mode: 'strict' | 'lenient',
  trail: CheckTrail = new CheckTrail(),
): RebuiltClaims {
  const strict = mode === 'strict';
  const byDigest = new Map<string, Disclosure>();
  for (const d of parsed) {
    trail.ensure(!byDigest.has(d.digest), 'duplicate_disclosure', 'the same disclosure is presented twice');
    byDigest.set(d.digest, d);
  }

  const seen = new Set<string>();
  const located: LocatedDisclosure[] = [];
  // The path of the value being rebuilt, pushed and popped on the way (copied only where a disclosure lands).
  const path: Array<string | number> = [];
  const see = (digest: unknown) => {
    if (strict) trail.ensure(typeof digest === 'string', 'format', 'a digest must be a string');
    const d = typeof digest === 'string' ? byDigest.get(digest) : undefined;
    if (!strict && !d) return undefined;
    trail.ensure(
      !seen.has(digest as string),
      'duplicate_digest',
      'a digest value appears more than once in the payload and disclosures',
    );
    seen.add(digest as string);
    return d;
  };
  /** A disclosure of the wrong kind: an error in strict mode, treated as undisclosed in lenient mode. */
  const rightKind = (ok: boolean, reason: string) => {
    if (strict) trail.ensure(ok, 'disclosure_format', reason);
    return ok;
  };

  /** `value` rebuilt at `path` plus `step`. */
  const rebuildAt = (step: string | number, value: unknown): unknown => {
    path.push(step);
    try {
      return rebuild(value);
    } finally {
      path.pop();
    }
  };
  /** A disclosure's value rebuilt where it lands. */
  const disclose = (d: Disclosure, step: string | number): unknown => {
    located.push({ ...d, path: [...path, step] });
    return rebuildAt(step, d.value);
  };

  const rebuild = (value: unknown): unknown => {
    if (path.length > MAX_NESTING)
      throw new CheckFailed('format', `claims are nested deeper than ${MAX_NESTING} levels`);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const element of value) {
        if (isPlainObject(element) && Object.keys(element).length === 1 && '...' in element) {
          const d = strict ? see(element['...']) : byDigest.get(String(element['...']));
          if (!d || !rightKind(d.name === undefined, 'an object-member disclosure is referenced as an array element'))
            continue; // undisclosed element or decoy
          if (!strict) see(d.digest);
          out.push(disclose(d, out.length));
          continue;
        }
        out.push(rebuildAt(out.length, element));
      }
      return out;
    }
    if (isPlainObject(value)) {
      const out = nullRecord();
      for (const [k, v] of Object.entries(value)) {
        if (k === '_sd' || (k === '_sd_alg' && path.length === 0)) continue;
        if (isPrototypeName(k)) throw new CheckFailed('format', `a claim must not be named ${k}`);
        out[k] = rebuildAt(k, v);
      }
      if (value._sd !== undefined) {
        if (strict) trail.ensure(Array.isArray(value._sd), 'format', '_sd must be an array of digests');
        for (const digest of Array.isArray(value._sd) ? value._sd : []) {
          const d = strict ? see(digest) : byDigest.get(String(digest));
          if (!d || !rightKind(d.name !== undefined, 'an array-element disclosure is referenced from _sd')) continue; // undisclosed claim or decoy
          if (!strict) see(d.digest);
          const name = d.name as string;
          if (Object.hasOwn(out, name))
            throw new CheckFailed('claim_collision', `disclosed claim "${name}" already exists at that level`);
          out[name] = disclose(d, name);
        }
      }
      return out;
    }
    return value;
  };

  const claims = rebuild(payload) as Record<string, unknown>;
  const unreferenced = parsed.filter((d) => !located.some((l) => l.digest === d.digest));
  if (strict)
    trail.ensure(
      unreferenced.length === 0,
      'disclosure_unreferenced',
      `${unreferenced.length} disclosure(s) match no digest in the payload (tampered, or a child presented without its parent)`,
    );
  return { claims, disclosures: located, unreferenced };
}

/**
 * Parses an SD-JWT and rebuilds its claims (RFC 9901 §7.1 steps 3-5), rejecting with a named check:
 * a digest seen twice (`duplicate_digest`), a disclosure given twice (`duplicate_disclosure`), a
 * disclosed name that already exists (`claim_collision`), a disclosure of the wrong shape for where
 * it is referenced (`disclosure_format`), and a disclosure nothing refers to (`disclosure_unreferenced`).
 * It does not check any signature.
 */
export function decodeSdJwt(text: string): DecodedSdJwt {
  let parts: SdJwtParts;
  try {
    parts = splitSdJwt(text);
  } catch (error) {
    throw new CheckFailed('format', `not an SD-JWT: ${(error as Error).message}`);
  }
  return decodeSdJwtParts(parts);
}

/** `decodeSdJwt` of an SD-JWT already split, with its issuer JWT header and claims when already decoded. */
export function decodeSdJwtParts(
  parts: SdJwtParts,
  knownHeader?: Record<string, unknown>,
  knownPayload?: Record<string, unknown>,
  trail: CheckTrail = new CheckTrail(),
): DecodedSdJwt {
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = knownHeader ?? decodeJwtHeader(parts.issuerJwt);
    payload = knownPayload ?? decodeJwtClaims(parts.issuerJwt);
  } catch (error) {
    throw new CheckFailed('format', `not an SD-JWT: ${(error as Error).message}`);
  }
  const alg = payload._sd_alg ?? 'sha-256';
  trail.ensure(alg === 'sha-256', 'sd_alg', `unsupported _sd_alg ${JSON.stringify(alg)} (only sha-256)`);

  const parsed: Disclosure[] = [];
  for (const encoded of parts.disclosures) {
    try {
      parsed.push(parseDisclosure(encoded));
    } catch (error) {
      throw new CheckFailed('disclosure_format', (error as Error).message);
    }
  }
  const { claims, disclosures } = rebuildClaims(payload, parsed, 'strict', trail);
  return { parts, header, payload, claims, disclosures };
}
