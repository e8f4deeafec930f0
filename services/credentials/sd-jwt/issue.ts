import { SignJWT, type JWK } from 'jose';
import { randomInt } from 'node:crypto';
import { signJwt } from '../../crypto/jws.ts';
import { publicJwkOf } from '../keys/holder-keys.ts';
import { createDisclosure, decoyDigest, type Disclosure } from './disclosure.ts';
import { isPrototypeName, nullRecord } from '../../untrusted/keys.ts';
import { NEVER_DISCLOSABLE, SD_JWT_VC_TYP, type ClaimPath, type SigningKey } from './types.ts';

export interface IssueSdJwtVcInput {
  issuer: SigningKey & { iss: string; x5c?: string[] };
  vct: string;
  /** The subject's claims; `iss`, `vct`, `cnf`, `iat`, `exp`, `nbf` and `status` are set from the other fields. */
  claims: Record<string, unknown>;
  /** Paths (into `claims`) of the selectively disclosable claims: object members and array elements, at any depth. */
  disclosable?: ClaimPath[];
  /** Holder public key bound as `cnf.jwk`. */
  holderJwk?: JWK;
  /** Issuance time, seconds since the epoch. */
  now: number;
  /** Lifetime in seconds (sets `exp`); omit for no expiry. */
  expiresIn?: number;
  notBefore?: number;
  /** Decoy digests added to the `_sd` array of every object that has selectively disclosable members. */
  decoys?: number;
  /**
   * Decoy `{"...": digest}` elements added to every array that has selectively disclosable
   * elements (default 0: some holders, e.g. @sd-jwt's presentation frames, index arrays by their
   * issued positions, decoys included).
   */
  arrayDecoys?: number;
  status?: Record<string, unknown>;
}

export interface IssuedSdJwtVc {
  /** `<issuer-signed JWT>~<disclosure>~...~` */
  sdJwt: string;
  disclosures: (Disclosure & { path: ClaimPath })[];
  payload: Record<string, unknown>;
}

const key = (path: ClaimPath) => JSON.stringify(path);
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function hasPath(value: unknown, path: ClaimPath): boolean {
  let cur: unknown = value;
  for (const step of path) {
    if (
      typeof step === 'number'
        ? !Array.isArray(cur) || step < 0 || step >= cur.length
        : !isPlainObject(cur) || !Object.hasOwn(cur, step)
    )
      return false;
    cur = (cur as Record<string | number, unknown>)[step];
  }
  return true;
}

/** Inserts `n` decoys at random positions (object `_sd` arrays are sorted afterwards, so only arrays see positions). */
function withDecoys<T>(items: T[], n: number, make: () => T): T[] {
  const out = [...items];
  for (let i = 0; i < n; i++) out.splice(randomInt(out.length + 1), 0, make());
  return out;
}

/**
 * Replaces every selectively disclosable member by a digest (RFC 9901 §4.2): object members go to a
 * sorted `_sd` array, array elements become `{"...": digest}`. Children are packed before their
 * parent, so a nested disclosable claim ends up inside its parent's disclosure.
 */
function pack(
  value: unknown,
  path: ClaimPath,
  sd: Set<string>,
  out: IssuedSdJwtVc['disclosures'],
  decoys: { object: number; array: number },
): unknown {
  if (Array.isArray(value)) {
    let any = false;
    const packed = value.map((element, i) => {
      const p = [...path, i];
      const inner = pack(element, p, sd, out, decoys);
      if (!sd.has(key(p))) return inner;
      any = true;
      const d = createDisclosure(undefined, inner);
      out.push({ ...d, path: p });
      return { '...': d.digest };
    });
    return any ? withDecoys(packed, decoys.array, () => ({ '...': decoyDigest() })) : packed;
  }
  if (isPlainObject(value)) {
    const result = nullRecord();
    const digests: string[] = [];
    for (const [name, member] of Object.entries(value)) {
      if (isPrototypeName(name)) throw new Error(`a claim must not be named ${name}`);
      const p = [...path, name];
      const inner = pack(member, p, sd, out, decoys);
      if (!sd.has(key(p))) {
        result[name] = inner;
        continue;
      }
      const d = createDisclosure(name, inner);
      out.push({ ...d, path: p });
      digests.push(d.digest);
    }
    if (digests.length) result._sd = withDecoys(digests, decoys.object, decoyDigest).sort();
    return result;
  }
  return value;
}

/** Issues a `dc+sd-jwt` SD-JWT VC signed by the issuer key. */
export async function issueSdJwtVc(input: IssueSdJwtVcInput): Promise<IssuedSdJwtVc> {
  const disclosable = input.disclosable ?? [];
  for (const name of Object.keys(input.claims))
    if (NEVER_DISCLOSABLE.includes(name)) throw new Error(`claim "${name}" is set by the issuer, not passed in claims`);
  for (const path of disclosable) {
    if (path.length === 0) throw new Error('an empty path cannot be selectively disclosable');
    if (!hasPath(input.claims, path)) throw new Error(`no claim at path ${key(path)}`);
  }
  const disclosures: IssuedSdJwtVc['disclosures'] = [];
  const packed = pack(input.claims, [], new Set(disclosable.map(key)), disclosures, {
    object: input.decoys ?? 0,
    array: input.arrayDecoys ?? 0,
  }) as Record<string, unknown>;
  const payload: Record<string, unknown> = {
    iss: input.issuer.iss,
    iat: input.now,
    ...(input.notBefore !== undefined ? { nbf: input.notBefore } : {}),
    ...(input.expiresIn !== undefined ? { exp: input.now + input.expiresIn } : {}),
    vct: input.vct,
    ...(input.holderJwk ? { cnf: { jwk: publicJwkOf(input.holderJwk) } } : {}),
    ...(input.status ? { status: input.status } : {}),
    ...packed,
    ...(disclosures.length ? { _sd_alg: 'sha-256' } : {}),
  };
  const header = {
    alg: input.issuer.alg,
    typ: SD_JWT_VC_TYP,
    ...(input.issuer.kid ? { kid: input.issuer.kid } : {}),
    ...(input.issuer.x5c ? { x5c: input.issuer.x5c } : {}),
  };
  // ES256, RS256 and EdDSA are signed synchronously with node:crypto (services/crypto/jws.ts); others through jose.
  const { alg } = input.issuer;
  const jwt =
    alg === 'ES256' || alg === 'RS256' || alg === 'EdDSA'
      ? signJwt(
          {
            alg,
            ...(input.issuer.kid !== undefined ? { kid: input.issuer.kid } : {}),
            privateKey: input.issuer.privateKey,
          },
          header,
          payload,
        )
      : await new SignJWT(payload).setProtectedHeader(header).sign(input.issuer.privateKey);
  return { sdJwt: `${[jwt, ...disclosures.map((d) => d.encoded)].join('~')}~`, disclosures, payload };
}
