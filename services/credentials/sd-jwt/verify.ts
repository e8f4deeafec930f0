import { CLOCK_SKEW_S } from '../../crypto/time-claims.ts';
import { compactVerify, createLocalJWKSet, errors, importJWK, type JWK } from 'jose';
import { decodeJwtClaims, decodeJwtHeader } from '../../crypto/decode-jwt.ts';
import { canVerifySync, headerVerifiableSync, verifyJwsAsync, verifyJwsWithKeyAsync } from '../../crypto/jws.ts';
import { asKeyObject } from '../../crypto/key-object.ts';
import { publicJwkOf } from '../keys/holder-keys.ts';
import { CheckFailed, runChecks, type Result, type CheckTrail } from '../result.ts';
import { decodeSdJwtParts, type DecodedSdJwt, type LocatedDisclosure, type SdJwtCheck } from './decode.ts';
import { sdHashOf } from './key-binding.ts';
import { splitSdJwt } from './serialization.ts';
import { KB_JWT_TYP, LEGACY_SD_JWT_VC_TYP, SD_JWT_VC_TYP, type SdJwtParts } from './types.ts';

const ALGS = ['ES256', 'ES384', 'EdDSA', 'RS256'];

export interface VerifySdJwtVcOptions {
  /** The issuer's keys (its `jwks_uri` document). Treated as immutable: imported keys are cached per object, so pass a new object when the keys change. */
  issuerJwks: { keys: JWK[] };
  /** Verification time, seconds since the epoch. */
  now: number;
  /** Allowed clock difference for iat/nbf/exp, seconds (default 60). */
  clockSkew?: number;
  expectedIssuer?: string;
  expectedVcts?: string[];
  /** When given, a KB-JWT is required and checked against these values. */
  keyBinding?: {
    aud: string;
    nonce: string;
    /** How old the KB-JWT's `iat` may be, seconds (default 300). */
    maxAge?: number;
  };
  algorithms?: string[];
  /** The issuer JWT's claims as the caller already decoded them, used when `jwt` is this SD-JWT's issuer JWT. */
  decodedIssuerJwt?: { jwt: string; claims: Record<string, unknown> };
  /** Where the checks that held are noted, when the caller reports them. */
  trail?: CheckTrail;
}

export interface VerifiedSdJwtVc {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** The disclosed claims, merged into the always-visible ones. */
  claims: Record<string, unknown>;
  disclosures: LocatedDisclosure[];
  holderJwk?: JWK;
  /** The KB-JWT's checked members, and its whole payload (profiles add claims, such as transaction_data_hashes). */
  keyBinding?: { aud: unknown; nonce: unknown; iat: number; claims: Record<string, unknown> };
}

/** One key-set resolver per JWKS object, so imported keys are reused across verifications. */
const keySets = new WeakMap<object, ReturnType<typeof createLocalJWKSet>>();
function keySetOf(jwks: { keys: JWK[] }) {
  let set = keySets.get(jwks);
  if (!set) keySets.set(jwks, (set = createLocalJWKSet(jwks)));
  return set;
}

/** Imported holder keys by JWK and alg (bounded), so a wallet's repeated presentations skip re-importing. */
const holderKeys = new Map<string, Promise<CryptoKey | Uint8Array>>();
function holderKey(jwk: JWK, alg: string) {
  const id = `${alg}:${JSON.stringify(publicJwkOf(jwk))}`;
  let key = holderKeys.get(id);
  if (!key) {
    if (holderKeys.size >= 256) holderKeys.delete(holderKeys.keys().next().value as string);
    key = importJWK(publicJwkOf(jwk), alg);
    key.catch(() => holderKeys.delete(id));
    holderKeys.set(id, key);
  }
  return key;
}

/** Whether one of the keys jose found fitting (several, when the JWT names no kid) signed the JWS. */
async function someKeyVerifies(jws: string, fitting: errors.JWKSMultipleMatchingKeys, algorithms: string[]) {
  for await (const key of fitting) {
    try {
      await compactVerify(jws, key, { algorithms });
      return true;
    } catch {
      // not this key
    }
  }
  return false;
}

/**
 * Whether the issuer key jose's key-set selection finds signed the JWT. ES256 and EdDSA are checked with
 * node:crypto on libuv's thread pool (`services/crypto/jws.ts` gives the figures), the rest by jose.
 */
async function issuerKeySigned(
  issuerJwt: string,
  header: Record<string, unknown>,
  jwks: { keys: JWK[] },
  algorithms: string[],
): Promise<void> {
  const keys = keySetOf(jwks);
  if (!headerVerifiableSync(header)) {
    await compactVerify(issuerJwt, keys, { algorithms });
    return;
  }
  const key = await keys(header);
  if (!(await verifyJwsWithKeyAsync(issuerJwt, asKeyObject(key), header.alg)))
    throw new errors.JWSSignatureVerificationFailed();
}

async function verifyIssuerSignature(
  issuerJwt: string,
  header: Record<string, unknown>,
  jwks: { keys: JWK[] },
  algorithms: string[],
): Promise<void> {
  try {
    await issuerKeySigned(issuerJwt, header, jwks, algorithms);
  } catch (error) {
    if (error instanceof errors.JWKSMultipleMatchingKeys && (await someKeyVerifies(issuerJwt, error, algorithms)))
      return;
    const reason =
      error instanceof errors.JWKSMultipleMatchingKeys ? 'signature verification failed' : (error as Error).message;
    throw new CheckFailed('issuer_signature', `the issuer JWT does not verify with the issuer JWKS (${reason})`);
  }
}

/** Whether the KB-JWT is signed by the holder key (node:crypto for ES256 and EdDSA, as above; jose otherwise). */
async function holderSigned(
  kbJwt: string,
  header: Record<string, unknown>,
  holderJwk: JWK,
  algorithms: string[],
): Promise<boolean> {
  const alg = header.alg as string;
  if (canVerifySync(header, holderJwk, alg)) return verifyJwsAsync(kbJwt, holderJwk as Record<string, unknown>, alg);
  try {
    await compactVerify(kbJwt, await holderKey(holderJwk, alg), { algorithms });
    return true;
  } catch {
    return false;
  }
}

function checkValidity(trail: CheckTrail, payload: Record<string, unknown>, now: number, skew: number): void {
  for (const k of ['iat', 'nbf', 'exp'])
    trail.ensure(payload[k] === undefined || typeof payload[k] === 'number', 'validity', `${k} must be a number`);
  trail.ensure(
    typeof payload.exp !== 'number' || now < payload.exp + skew,
    'validity',
    'the credential has expired (exp)',
  );
  trail.ensure(
    typeof payload.nbf !== 'number' || now >= payload.nbf - skew,
    'validity',
    'the credential is not yet valid (nbf)',
  );
  trail.ensure(
    typeof payload.iat !== 'number' || payload.iat - skew <= now,
    'validity',
    'the credential is issued in the future (iat)',
  );
}

async function verifyKeyBinding(
  trail: CheckTrail,
  kbJwt: string | undefined,
  decoded: DecodedSdJwt,
  holderJwk: JWK | undefined,
  options: NonNullable<VerifySdJwtVcOptions['keyBinding']>,
  now: number,
  skew: number,
  algorithms: string[],
) {
  trail.ensure(holderJwk, 'holder_binding', 'a key binding is required but the credential has no cnf.jwk');
  trail.ensure(kbJwt, 'kb_jwt', 'a key binding JWT is required but none was presented');
  let header: Record<string, unknown>;
  let kb: Record<string, unknown>;
  try {
    header = decodeJwtHeader(kbJwt);
    kb = decodeJwtClaims(kbJwt);
  } catch {
    throw new CheckFailed('kb_jwt', 'the key binding JWT is not a JWT');
  }
  trail.ensure(
    header.typ === KB_JWT_TYP,
    'kb_jwt',
    `the key binding JWT typ is ${JSON.stringify(header.typ)}, not ${KB_JWT_TYP}`,
  );
  trail.ensure(
    typeof header.alg === 'string' && algorithms.includes(header.alg),
    'kb_jwt',
    `key binding alg ${JSON.stringify(header.alg)} is not allowed`,
  );
  trail.ensure(
    await holderSigned(kbJwt, header, holderJwk, algorithms),
    'kb_signature',
    'the key binding JWT is not signed by the cnf.jwk holder key',
  );
  trail.ensure(
    kb.sd_hash === sdHashOf(decoded.parts.issuerJwt, decoded.parts.disclosures),
    'sd_hash',
    'sd_hash does not match the presented issuer JWT and disclosures',
  );
  trail.ensure(kb.nonce === options.nonce, 'nonce', 'the key binding nonce is not the one the verifier sent');
  trail.ensure(kb.aud === options.aud, 'aud', 'the key binding aud is not this verifier');
  trail.ensure(typeof kb.iat === 'number', 'kb_freshness', 'the key binding JWT has no numeric iat');
  const maxAge = options.maxAge ?? 300;
  trail.ensure(kb.iat <= now + skew, 'kb_freshness', 'the key binding JWT is issued in the future');
  trail.ensure(kb.iat >= now - maxAge - skew, 'kb_freshness', `the key binding JWT is older than ${maxAge} s`);
  return { aud: kb.aud, nonce: kb.nonce, iat: kb.iat, claims: kb };
}

/**
 * Verifies an SD-JWT VC (or its presentation): issuer signature against the JWKS, `typ`
 * (`dc+sd-jwt`, or the older `vc+sd-jwt`), digests and disclosures, validity times, and with
 * `keyBinding` the KB-JWT (holder key from `cnf.jwk`, `sd_hash`, `nonce`, `aud`, freshness).
 * The result names the first failing check.
 */
export function verifySdJwtVc(
  text: string,
  options: VerifySdJwtVcOptions,
): Promise<Result<VerifiedSdJwtVc, SdJwtCheck>> {
  return runChecks<VerifiedSdJwtVc, SdJwtCheck>(options.trail, async (trail: CheckTrail) => {
    const algorithms = options.algorithms ?? ALGS;
    const skew = options.clockSkew ?? CLOCK_SKEW_S;
    // Signature first (RFC 9901 §7.1 step 2), then the disclosures.
    let parts: SdJwtParts;
    let header: Record<string, unknown>;
    try {
      parts = splitSdJwt(text);
      header = decodeJwtHeader(parts.issuerJwt);
    } catch (error) {
      throw new CheckFailed('format', `not an SD-JWT: ${(error as Error).message}`);
    }
    trail.ensure(
      header.typ === SD_JWT_VC_TYP || header.typ === LEGACY_SD_JWT_VC_TYP,
      'typ',
      `typ ${JSON.stringify(header.typ)} is not ${SD_JWT_VC_TYP}`,
    );
    trail.ensure(
      typeof header.alg === 'string' && algorithms.includes(header.alg),
      'issuer_signature',
      `alg ${JSON.stringify(header.alg)} is not allowed`,
    );
    await verifyIssuerSignature(parts.issuerJwt, header, options.issuerJwks, algorithms);
    const known = options.decodedIssuerJwt;
    const decoded = decodeSdJwtParts(
      parts,
      header,
      known && known.jwt === parts.issuerJwt ? known.claims : undefined,
      trail,
    );
    const { payload } = decoded;
    trail.ensure(typeof payload.iss === 'string', 'iss', 'the credential has no iss');
    trail.ensure(
      options.expectedIssuer === undefined || payload.iss === options.expectedIssuer,
      'iss',
      'iss is not the expected issuer',
    );
    trail.ensure(typeof payload.vct === 'string', 'vct', 'an SD-JWT VC needs a vct string');
    trail.ensure(
      !options.expectedVcts || options.expectedVcts.includes(payload.vct),
      'vct',
      `vct ${payload.vct} is not one of the expected types`,
    );
    checkValidity(trail, payload, options.now, skew);
    const cnf = payload.cnf as { jwk?: JWK } | undefined;
    trail.ensure(
      cnf === undefined || (typeof cnf === 'object' && cnf !== null),
      'holder_binding',
      'cnf must be an object',
    );
    const holderJwk = cnf?.jwk;
    const keyBinding = options.keyBinding
      ? await verifyKeyBinding(
          trail,
          decoded.parts.kbJwt,
          decoded,
          holderJwk,
          options.keyBinding,
          options.now,
          skew,
          algorithms,
        )
      : undefined;
    return {
      header,
      payload,
      claims: decoded.claims,
      disclosures: decoded.disclosures,
      ...(holderJwk ? { holderJwk } : {}),
      ...(keyBinding ? { keyBinding } : {}),
    };
  });
}
