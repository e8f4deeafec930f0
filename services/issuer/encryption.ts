import { CompactEncrypt, compactDecrypt, importJWK, type JWK } from 'jose';
import { oauthError } from '../errors.ts';
import { ENC_VALUES } from './settings.ts';

/**
 * Credential request and response encryption (OpenID4VCI 1.0 §10): compact JWE with ECDH-ES and
 * A128GCM or A256GCM. Every failure is 400 `invalid_encryption_parameters`; errors are never encrypted.
 */
const invalid = (description: string) => oauthError('invalid_encryption_parameters', description);
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

export interface ResponseEncryption {
  jwk: JWK;
  enc: string;
}

/** An encrypted credential (or deferred) request: to our `req-enc-1` key, ECDH-ES, a supported enc, JSON inside. */
export async function decryptRequest(
  jwe: unknown,
  key: { publicJwk: JWK; privateKey: CryptoKey },
): Promise<Record<string, unknown>> {
  if (typeof jwe !== 'string' || jwe.split('.').length !== 5)
    throw invalid('An application/jwt credential request must be a compact JWE');
  let plaintext: Uint8Array;
  try {
    const result = await compactDecrypt(jwe.trim(), key.privateKey, {
      keyManagementAlgorithms: ['ECDH-ES'],
      contentEncryptionAlgorithms: ENC_VALUES,
    });
    if (result.protectedHeader.kid !== undefined && result.protectedHeader.kid !== key.publicJwk.kid)
      throw new Error('kid');
    plaintext = result.plaintext;
  } catch {
    throw invalid("The JWE does not decrypt with the issuer's request encryption key (ECDH-ES, A128GCM or A256GCM)");
  }
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(plaintext));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw invalid('The decrypted credential request is not a JSON object');
}

/** `credential_response_encryption` of a request: a public EC/OKP `jwk` for ECDH-ES and a supported `enc`. */
export function responseEncryptionOf(value: unknown): ResponseEncryption | undefined {
  if (value === undefined) return undefined;
  const params = value as { jwk?: Record<string, unknown>; enc?: unknown };
  if (!params || typeof params !== 'object' || !params.jwk || typeof params.jwk !== 'object')
    throw invalid('credential_response_encryption needs a jwk');
  const jwk = params.jwk;
  if (!['EC', 'OKP'].includes(String(jwk.kty)) || PRIVATE_MEMBERS.some((m) => jwk[m] !== undefined))
    throw invalid('credential_response_encryption.jwk must be a public EC or OKP key');
  if (jwk.alg !== undefined && jwk.alg !== 'ECDH-ES')
    throw invalid('Only ECDH-ES is supported for response encryption');
  if (typeof params.enc !== 'string' || !ENC_VALUES.includes(params.enc))
    throw invalid(`credential_response_encryption.enc must be one of ${ENC_VALUES.join(', ')}`);
  return { jwk: jwk as JWK, enc: params.enc };
}

/** The response body as a compact JWE to the wallet's key. */
export async function encryptResponse(body: unknown, to: ResponseEncryption): Promise<string> {
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK({ ...to.jwk, alg: 'ECDH-ES' }, 'ECDH-ES');
  } catch {
    throw invalid('credential_response_encryption.jwk is not a usable ECDH-ES key');
  }
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(body)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: to.enc, ...(to.jwk.kid ? { kid: to.jwk.kid } : {}) })
    .encrypt(key);
}
