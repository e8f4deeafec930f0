import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { fromB64url } from '../bytes.ts';

export type HolderAlg = 'ES256' | 'EdDSA' | 'RS256';

/** A key pair as the codecs use it: the private key stays a non-exportable-by-default CryptoKey. */
export interface KeyPair {
  alg: HolderAlg;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
  /** RFC 7638 SHA-256 thumbprint of the public JWK, base64url; also used as `kid`. */
  kid: string;
}

const PUBLIC_MEMBERS: Record<string, string[]> = {
  EC: ['kty', 'crv', 'x', 'y'],
  OKP: ['kty', 'crv', 'x'],
  RSA: ['kty', 'n', 'e'],
};

/** The public members of a JWK only (drops `d`, `p`, ... and metadata), so a private JWK never leaks by accident. */
export function publicJwkOf(jwk: JWK): JWK {
  const members = PUBLIC_MEMBERS[String(jwk.kty)];
  if (!members) throw new Error(`unsupported kty ${String(jwk.kty)}`);
  return Object.fromEntries(
    members
      .filter((m) => (jwk as Record<string, unknown>)[m] !== undefined)
      .map((m) => [m, (jwk as Record<string, unknown>)[m]]),
  ) as JWK;
}

/** RFC 7638 thumbprint (SHA-256), base64url. */
export const jwkThumbprint = (jwk: JWK) => calculateJwkThumbprint(publicJwkOf(jwk), 'sha256');

/** RFC 7638 thumbprint as raw bytes (the form the OpenID4VP mdoc handover carries). */
export const jwkThumbprintBytes = async (jwk: JWK) => fromB64url(await jwkThumbprint(jwk));

/**
 * Generates a holder (or issuer) key: ES256 (P-256) by default, EdDSA (Ed25519) or RS256 (2048-bit).
 * Extractable unless asked otherwise: node:crypto signs with it synchronously (COSE, Data Integrity,
 * compact JWS), and Node 24 deprecates converting a non-extractable CryptoKey to a KeyObject (DEP0204).
 */
export async function generateHolderKey(
  alg: HolderAlg = 'ES256',
  options: { extractable?: boolean } = {},
): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, {
    extractable: options.extractable ?? true,
    ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
    ...(alg === 'RS256' ? { modulusLength: 2048 } : {}),
  });
  const publicJwk = publicJwkOf(await exportJWK(publicKey));
  return { alg, privateKey, publicKey, publicJwk, kid: await jwkThumbprint(publicJwk) };
}
