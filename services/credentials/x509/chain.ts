import { X509Certificate, createHash } from 'node:crypto';
import * as pkijs from 'pkijs';

/** KeyUsage bits (RFC 5280 §4.2.1.3) as they sit in the first byte of the BIT STRING. */
export const KEY_USAGE = { digitalSignature: 0x80, keyCertSign: 0x04, cRLSign: 0x02 } as const;

/** DER bytes of a certificate given as DER, PEM, or base64 DER (a JOSE `x5c` entry). */
export function certificateDer(cert: Uint8Array | string): Uint8Array {
  if (typeof cert !== 'string') return cert;
  return cert.includes('-----BEGIN')
    ? new Uint8Array(new X509Certificate(cert).raw)
    : new Uint8Array(Buffer.from(cert, 'base64'));
}

/**
 * Parsed certificates by their encoding (bounded): a verifier meets the same document signers and
 * roots on every presentation, and parsing (node:crypto, pkijs for key usage) dominates otherwise.
 */
const parsedCertificates = new Map<string, X509Certificate>();
const PARSED_MAX = 512;
export function parseCertificate(cert: Uint8Array | string): X509Certificate {
  const id = typeof cert === 'string' ? cert : Buffer.from(cert).toString('base64');
  let parsed = parsedCertificates.get(id);
  if (!parsed) {
    parsed = new X509Certificate(typeof cert === 'string' ? cert : Buffer.from(cert));
    if (parsedCertificates.size >= PARSED_MAX)
      parsedCertificates.delete(parsedCertificates.keys().next().value as string);
    parsedCertificates.set(id, parsed);
  }
  return parsed;
}

const keyUsages = new WeakMap<X509Certificate, number | undefined>();

/** The first byte of the keyUsage BIT STRING, read with pkijs; undefined when the extension is absent. */
export function keyUsageOf(cert: X509Certificate): number | undefined {
  if (keyUsages.has(cert)) return keyUsages.get(cert);
  const usage = readKeyUsage(cert);
  keyUsages.set(cert, usage);
  return usage;
}

function readKeyUsage(cert: X509Certificate): number | undefined {
  const parsed = pkijs.Certificate.fromBER(new Uint8Array(cert.raw));
  const ext = parsed.extensions?.find((e) => e.extnID === '2.5.29.15');
  if (!ext) return undefined;
  const bits = (ext.parsedValue as { valueBlock?: { valueHexView?: Uint8Array } } | undefined)?.valueBlock
    ?.valueHexView;
  return bits && bits.length > 0 ? bits[0] : 0;
}

/**
 * OpenID4VP 1.0 `x509_hash` client identifier value: base64url SHA-256 of the leaf certificate's DER.
 */
export const x509Hash = (leaf: Uint8Array | string) =>
  createHash('sha256').update(certificateDer(leaf)).digest('base64url');
