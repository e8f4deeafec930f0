import { CLOCK_SKEW_S, failedTimeClaim, isFreshIssuedAt } from '../crypto/time-claims.ts';
import { SignJWT, compactVerify, importJWK, type JWK } from 'jose';
import { decodeJwtClaims, decodeJwtHeader } from '../crypto/decode-jwt.ts';
import { didJwkToJwk, didKeyToJwk, publicJwkOf } from '../credentials/keys/index.ts';
import { oauthError } from '../errors.ts';
import { isPrototypeName } from '../untrusted/keys.ts';
import { canVerifySync, jwkThumbprintSync, verifyJwsSync } from '../crypto/jws.ts';

/**
 * Key proofs of type `jwt` (OpenID4VCI 1.0 Appendix F.1), one named rule each. A failure is 400
 * `invalid_proof` (decisions section 8); nonce problems are `invalid_nonce`.
 */
const PROOF_TYP = 'openid4vci-proof+jwt';
/** How old a key proof may be (its `iat`); the future is bounded by the service's clock skew. */
const PROOF_MAX_AGE_S = 300;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export interface ProofContext {
  issuer: string;
  algs: string[];
  /** The token's client, when it has one (anonymous pre-authorized access has none). */
  clientId?: string;
  nowMs: number;
}

export interface CheckedProof {
  jwk: JWK;
  jkt: string;
  nonce: string;
  /** The `key_attestation` header parameter, when the proof carries one (checked per configuration). */
  keyAttestation?: unknown;
}

const invalidProof = (description: string) => oauthError('invalid_proof', description);

function proofHeader(jwt: string): Record<string, unknown> {
  try {
    return decodeJwtHeader(jwt);
  } catch {
    throw invalidProof('A proof is not a compact JWS');
  }
}

/** `typ` must be `openid4vci-proof+jwt`. */
function checkProofType(header: Record<string, unknown>): void {
  if (header.typ !== PROOF_TYP) throw invalidProof(`The proof typ must be ${PROOF_TYP}`);
}

/** `alg` must be one the configuration lists (never `none` or a MAC). */
function checkProofAlg(header: Record<string, unknown>, algs: string[]): string {
  const alg = header.alg;
  if (typeof alg !== 'string' || !algs.includes(alg))
    throw invalidProof(`The proof alg must be one of ${algs.join(', ')}`);
  return alg;
}

/** Exactly one of `jwk`, `kid` (a did:key or did:jwk URL) and `x5c` names the key; `jwk` carries no private member. */
function proofKey(header: Record<string, unknown>): JWK {
  const named = ['jwk', 'kid', 'x5c'].filter((m) => header[m] !== undefined);
  if (named.length !== 1) throw invalidProof('The proof header must carry exactly one of jwk, kid and x5c');
  if (header.jwk !== undefined) {
    const jwk = header.jwk as Record<string, unknown>;
    if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk) || Object.keys(jwk).some(isPrototypeName))
      throw invalidProof('The proof jwk is not a JWK');
    if (PRIVATE_MEMBERS.some((m) => jwk[m] !== undefined))
      throw invalidProof('The proof jwk carries private key material');
    try {
      return publicJwkOf(jwk as JWK);
    } catch {
      throw invalidProof('The proof jwk is not a supported public key');
    }
  }
  if (header.kid !== undefined) {
    const did = String(header.kid).split('#')[0];
    try {
      if (did.startsWith('did:key:')) return didKeyToJwk(did);
      if (did.startsWith('did:jwk:')) return publicJwkOf(didJwkToJwk(did));
    } catch {
      throw invalidProof('The proof kid does not resolve to a key');
    }
    throw invalidProof('The proof kid must be a did:key or did:jwk URL');
  }
  throw invalidProof('x5c proofs are not accepted by this issuer: send jwk or kid');
}

/** `aud` is the credential issuer, `iat` at most 300 s old and not in the future (both with CLOCK_SKEW_S), `iss` the client (when the token has one), `nonce` present. */
export function checkProofClaims(claims: Record<string, unknown>, context: ProofContext): string {
  const aud = claims.aud;
  if (!(aud === context.issuer || (Array.isArray(aud) && aud.length === 1 && aud[0] === context.issuer)))
    throw invalidProof('The proof aud must be the credential issuer');
  const now = context.nowMs / 1000;
  if (!isFreshIssuedAt(claims.iat, now, PROOF_MAX_AGE_S))
    throw invalidProof(
      `The proof iat is missing, older than ${PROOF_MAX_AGE_S} s or more than ${CLOCK_SKEW_S} s in the future`,
    );
  const late = failedTimeClaim(claims, now);
  if (late) throw invalidProof(`The proof ${late} claim is outside its window (clock skew ${CLOCK_SKEW_S} s)`);
  if (context.clientId !== undefined && claims.iss !== context.clientId)
    throw invalidProof('The proof iss must be the client the token was issued to');
  if (typeof claims.nonce !== 'string' || claims.nonce === '')
    throw invalidProof('The proof has no nonce; get one from the nonce endpoint');
  return claims.nonce;
}

/** Verifies one proof JWT by every rule and its signature; returns the holder key it proves. */
export async function checkProof(jwt: unknown, context: ProofContext): Promise<CheckedProof> {
  if (typeof jwt !== 'string') throw invalidProof('Each proof must be a JWT string');
  const header = proofHeader(jwt);
  checkProofType(header);
  const alg = checkProofAlg(header, context.algs);
  const jwk = proofKey(header);
  let claims: Record<string, unknown>;
  try {
    const verified = canVerifySync(header, jwk, alg)
      ? verifyJwsSync(jwt, jwk as Record<string, unknown>, alg)
      : (await compactVerify(jwt, await importJWK(jwk, alg)), true);
    if (!verified) throw new Error('signature');
    claims = decodeJwtClaims(jwt);
  } catch {
    throw invalidProof('The proof signature does not verify with its key');
  }
  const nonce = checkProofClaims(claims, context);
  return {
    jwk,
    jkt: jwkThumbprintSync(jwk as Record<string, unknown>),
    nonce,
    ...(header.key_attestation !== undefined ? { keyAttestation: header.key_attestation } : {}),
  };
}

/** Proofs of one request: pairwise-distinct keys, and one nonce shared by all of them. */
export function checkProofSet(proofs: CheckedProof[]): string {
  const keys = new Set(proofs.map((p) => p.jkt));
  if (keys.size !== proofs.length) throw invalidProof('Each proof of a batch must use a different key');
  const nonces = new Set(proofs.map((p) => p.nonce));
  if (nonces.size !== 1) throw oauthError('invalid_nonce', 'All proofs of one request must carry the same c_nonce');
  return proofs[0].nonce;
}

// ----- the client side: creating key proofs (the wallet, the flow runners) -----

/** The key a wallet proves possession of (and has its credential bound to). */
export interface ProofKey {
  alg: string;
  privateKey: CryptoKey | Uint8Array | import('node:crypto').KeyObject;
  publicJwk: JWK;
}

/** What a key proof says (OpenID4VCI 1.0 Appendix F.1). */
export interface KeyProofClaims {
  /** The credential issuer. */
  aud: string;
  iat: number;
  /** The c_nonce from the nonce endpoint. */
  nonce?: string;
  /** The client id, except for anonymous pre-authorized access. */
  iss?: string;
}

/**
 * The client side of a JWT key proof, for the wallet and the flow runners alike: `typ`
 * openid4vci-proof+jwt, the public key in `jwk`, and a key attestation in the header when there is one.
 * `checkProof` below is the issuer's side of the same rules.
 */
export function keyProofHeader(key: ProofKey, keyAttestation?: string): Record<string, unknown> & { alg: string } {
  return {
    alg: key.alg,
    typ: PROOF_TYP,
    jwk: key.publicJwk,
    ...(keyAttestation ? { key_attestation: keyAttestation } : {}),
  };
}

export function keyProofPayload(claims: KeyProofClaims): Record<string, unknown> {
  return {
    aud: claims.aud,
    iat: claims.iat,
    ...(claims.nonce ? { nonce: claims.nonce } : {}),
    ...(claims.iss ? { iss: claims.iss } : {}),
  };
}

export function signKeyProof(key: ProofKey, claims: KeyProofClaims, keyAttestation?: string): Promise<string> {
  return new SignJWT(keyProofPayload(claims))
    .setProtectedHeader(keyProofHeader(key, keyAttestation))
    .sign(key.privateKey as CryptoKey);
}
