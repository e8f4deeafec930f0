import { CLOCK_SKEW_S, isFreshIssuedAt } from '../crypto/time-claims.ts';
import { EmbeddedJWK, calculateJwkThumbprint, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import { OAuthError } from '../errors.ts';

/** DPoP proof checks of RFC 9449 section 4.3, reusable by every endpoint that accepts DPoP. */
/** Spec §5: DPoP proofs take exactly these algorithms, as `private_key_jwt` does. */
export const DPOP_ALGS = ['ES256', 'RS256', 'EdDSA'] as const;
const MAX_AGE_S = 60;

export interface ProofExpectations {
  method: string;
  /** The endpoint URL the proof must name, without query and fragment. */
  url: string;
  nowMs: number;
  /** Required at resources: base64url(SHA-256(access token)). */
  accessToken?: string;
  /** When set, the proof must carry this nonce. */
  nonce?: string;
}

export interface VerifiedProof {
  jkt: string;
  jti: string;
  jwk: JWK;
}

export class DPoPError extends OAuthError {
  constructor(
    description: string,
    readonly kind: 'invalid_dpop_proof' | 'use_dpop_nonce' = 'invalid_dpop_proof',
  ) {
    super(kind, description);
  }
}

const normalize = (url: string) => {
  const u = new URL(url);
  u.hash = '';
  u.search = '';
  return u.href;
};

/** Verifies a proof's form, signature and claims; replay (`jti`) is the caller's to record. */
export async function verifyDPoPProof(proof: string, expect: ProofExpectations): Promise<VerifiedProof> {
  let header;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw new DPoPError('The DPoP proof is not a JWS');
  }
  if (header.typ !== 'dpop+jwt') throw new DPoPError('The DPoP proof typ must be dpop+jwt');
  if (!DPOP_ALGS.includes(header.alg as never))
    throw new DPoPError(`Unsupported DPoP proof alg; use one of ${DPOP_ALGS.join(', ')}`);
  if (!header.jwk || typeof header.jwk !== 'object' || 'd' in header.jwk)
    throw new DPoPError('The DPoP proof must carry a public jwk header');
  let payload;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_ALGS],
      currentDate: new Date(expect.nowMs),
      clockTolerance: CLOCK_SKEW_S,
    }));
  } catch {
    throw new DPoPError('The DPoP proof signature does not verify');
  }
  const now = Math.floor(expect.nowMs / 1000);
  if (typeof payload.jti !== 'string' || payload.jti.length < 8 || payload.jti.length > 200)
    throw new DPoPError('The DPoP proof needs a jti');
  if (payload.htm !== expect.method) throw new DPoPError('The DPoP proof htm does not match the request method');
  if (typeof payload.htu !== 'string') throw new DPoPError('The DPoP proof needs htu');
  let htu: string;
  try {
    htu = normalize(payload.htu);
  } catch {
    throw new DPoPError('The DPoP proof htu is not a URL');
  }
  if (htu !== normalize(expect.url)) throw new DPoPError('The DPoP proof htu does not match the request URL');
  if (!isFreshIssuedAt(payload.iat, now, MAX_AGE_S))
    throw new DPoPError(
      `The DPoP proof iat is missing, older than ${MAX_AGE_S} s or more than ${CLOCK_SKEW_S} s in the future`,
    );
  if (expect.accessToken !== undefined) {
    const ath = createHash('sha256').update(expect.accessToken).digest('base64url');
    if (payload.ath !== ath) throw new DPoPError('The DPoP proof ath does not match the access token');
  }
  if (expect.nonce !== undefined && payload.nonce !== expect.nonce) {
    throw new DPoPError('Authorization server requires nonce in DPoP proof', 'use_dpop_nonce');
  }
  const jwk = header.jwk as JWK;
  return { jkt: await calculateJwkThumbprint(jwk), jti: payload.jti, jwk };
}
