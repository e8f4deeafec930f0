import { SignJWT } from 'jose';
import { sha256Base64url } from '../bytes.ts';
import { sdJwtWithoutKb } from './serialization.ts';
import { KB_JWT_TYP, type SigningKey } from './types.ts';

/** `sd_hash`: base64url(SHA-256(ASCII(<issuer JWT>~<disclosures>~))) (RFC 9901 §4.3.1). */
export const sdHashOf = (issuerJwt: string, disclosures: string[]) =>
  sha256Base64url(sdJwtWithoutKb(issuerJwt, disclosures));

export interface KeyBindingInput {
  holder: SigningKey;
  aud: string;
  nonce: string;
  /** Seconds since the epoch. */
  now: number;
  /** Members a profile adds (OpenID4VP 1.0 Appendix B.3.3: transaction_data_hashes and its alg). */
  claims?: Record<string, unknown>;
}

/** A key-binding JWT (`typ` kb+jwt) over the presented issuer JWT and disclosures. */
export function createKeyBindingJwt(issuerJwt: string, disclosures: string[], input: KeyBindingInput): Promise<string> {
  return new SignJWT({
    ...input.claims,
    iat: input.now,
    aud: input.aud,
    nonce: input.nonce,
    sd_hash: sdHashOf(issuerJwt, disclosures),
  })
    .setProtectedHeader({ alg: input.holder.alg, typ: KB_JWT_TYP })
    .sign(input.holder.privateKey);
}
