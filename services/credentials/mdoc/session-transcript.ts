import type { JWK } from 'jose';
import { sha256 } from '../bytes.ts';
import { jwkThumbprintBytes } from '../keys/holder-keys.ts';
import { encodeCbor } from './cbor.ts';

export interface Oid4vpHandoverInput {
  /** The `client_id` request parameter, including its prefix (e.g. `x509_san_dns:verifier.example`). */
  clientId: string;
  nonce: string;
  /** `response_uri` (or `redirect_uri`, whichever the response mode uses). */
  responseUri: string;
  /** For encrypted responses (direct_post.jwt): the verifier's encryption JWK, or its RFC 7638 thumbprint bytes. */
  encryptionKey?: JWK | Uint8Array;
}

/**
 * The OpenID4VP 1.0 redirect handover (Appendix B.2.6.1):
 * `["OpenID4VPHandover", sha256(cbor([clientId, nonce, jwkThumbprint / null, responseUri]))]`.
 * The hash is over the CBOR of the info array itself, not a byte-string wrapping of it.
 */
export async function oid4vpHandover(input: Oid4vpHandoverInput): Promise<[string, Uint8Array]> {
  const key = input.encryptionKey;
  return oid4vpHandoverOfThumbprint(
    input,
    key === undefined ? null : key instanceof Uint8Array ? key : await jwkThumbprintBytes(key),
  );
}

/** `oid4vpHandover` with the encryption key's thumbprint already computed (null without encryption). */
export function oid4vpHandoverOfThumbprint(
  input: Omit<Oid4vpHandoverInput, 'encryptionKey'>,
  thumbprint: Uint8Array | null,
): [string, Uint8Array] {
  const info = encodeCbor([input.clientId, input.nonce, thumbprint, input.responseUri]);
  return ['OpenID4VPHandover', sha256(info)];
}

/** `SessionTranscript = [DeviceEngagementBytes: null, EReaderKeyBytes: null, Handover]` for OpenID4VP redirects. */
export async function oid4vpSessionTranscript(input: Oid4vpHandoverInput): Promise<unknown[]> {
  return [null, null, await oid4vpHandover(input)];
}

export interface DcApiHandoverInput {
  /** The origin the browser reported, without an `origin:` prefix. */
  origin: string;
  nonce: string;
  /** dc_api.jwt: the verifier's encryption JWK (its RFC 7638 thumbprint goes in); null for dc_api. */
  encryptionKey?: JWK;
}

/**
 * The Digital Credentials API handover (OpenID4VP 1.0 Appendix B.2.6.2):
 * `["OpenID4VPDCAPIHandover", sha256(cbor([origin, nonce, jwkThumbprint / null]))]`.
 */
async function dcApiHandover(input: DcApiHandoverInput): Promise<[string, Uint8Array]> {
  const thumbprint = input.encryptionKey ? await jwkThumbprintBytes(input.encryptionKey) : null;
  return ['OpenID4VPDCAPIHandover', sha256(encodeCbor([input.origin, input.nonce, thumbprint]))];
}

/** `SessionTranscript = [null, null, OpenID4VPDCAPIHandover]` for the Digital Credentials API. */
export async function dcApiSessionTranscript(input: DcApiHandoverInput): Promise<unknown[]> {
  return [null, null, await dcApiHandover(input)];
}
