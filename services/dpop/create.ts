import { SignJWT, type JWK } from 'jose';
import { randomToken, sha256 } from '../crypto/random.ts';

/** The key a client signs its DPoP proofs with. */
export interface DPoPKey {
  alg: string;
  privateKey: CryptoKey | Uint8Array | import('node:crypto').KeyObject;
  publicJwk: JWK;
}

/** `htu` is the URL without query and fragment (RFC 9449 §4.2). */
const htuOf = (url: string) => {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
};

/**
 * The client side of DPoP (RFC 9449 §4.2), for the wallet and the flow runners alike: `typ` dpop+jwt,
 * the public key in `jwk`, a fresh `jti`, `htm` and `htu`, `iat` by the caller's clock, `ath` when an
 * access token goes with the request, and the server's `nonce` when it gave one.
 */
export function signDPoPProof(
  key: DPoPKey,
  request: { method: string; url: string; nowS: number; accessToken?: string; nonce?: string },
): Promise<string> {
  return new SignJWT({
    htm: request.method,
    htu: htuOf(request.url),
    jti: randomToken(16),
    ...(request.nonce ? { nonce: request.nonce } : {}),
    ...(request.accessToken ? { ath: sha256(request.accessToken) } : {}),
  })
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk })
    .setIssuedAt(request.nowS)
    .sign(key.privateKey as CryptoKey);
}
