import { X509Certificate, createHash } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import * as pkijs from 'pkijs';
import { CheckFailed, ensure, runChecksSync, type Result } from '../result.ts';

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

const within = (cert: X509Certificate, nowSeconds: number) =>
  nowSeconds * 1000 >= Date.parse(cert.validFrom) && nowSeconds * 1000 <= Date.parse(cert.validTo);
const label = (cert: X509Certificate) => cert.subject.replace(/\n/g, ', ');

/**
 * Path validation (RFC 5280 §6, simplified): `chain` is leaf first; each certificate must be
 * issued and signed (node:crypto) by the next one, the last one by (or equal to) a trust anchor;
 * every certificate on the path must be valid at `now`, and every issuer a CA. Throws
 * `CheckFailed(check, ...)`; name constraints, policies and revocation are not evaluated.
 */
export function validatePath<C extends string>(
  chainDer: Uint8Array[],
  anchors: (Uint8Array | string)[],
  nowSeconds: number,
  check: C,
): { leaf: X509Certificate; root: X509Certificate; path: X509Certificate[] } {
  ensure(chainDer.length > 0, check, 'the certificate chain is empty');
  ensure(anchors.length > 0, check, 'no trust anchor is configured');
  let chain: X509Certificate[];
  let roots: X509Certificate[];
  try {
    chain = chainDer.map((c) => parseCertificate(c));
    roots = anchors.map((r) => parseCertificate(r));
  } catch {
    throw new CheckFailed(check, 'a certificate cannot be parsed');
  }
  const rootOf = (cert: X509Certificate) =>
    roots.find((r) => r.raw.equals(cert.raw) || (cert.checkIssued(r) && cert.verify(r.publicKey)));
  let index = 0;
  let root = rootOf(chain[0]);
  while (!root && index + 1 < chain.length) {
    const [current, issuer] = [chain[index], chain[index + 1]];
    ensure(
      current.checkIssued(issuer) && current.verify(issuer.publicKey),
      check,
      `certificate ${index} is not issued and signed by certificate ${index + 1} of the chain`,
    );
    ensure(issuer.ca, check, `certificate ${index + 1} issues certificates but is not a CA`);
    index++;
    root = rootOf(chain[index]);
  }
  ensure(root, check, 'the chain does not lead to a trusted anchor');
  const path = [...chain.slice(0, index + 1), ...(root.raw.equals(chain[index].raw) ? [] : [root])];
  for (const cert of path)
    ensure(
      within(cert, nowSeconds),
      check,
      `certificate "${label(cert)}" is not valid at the verification time (${cert.validFrom} - ${cert.validTo})`,
    );
  ensure(root.ca || path.length === 1, check, 'the trust anchor is not a CA');
  return { leaf: chain[0], root, path };
}

/**
 * OpenID4VP 1.0 `x509_hash` client identifier value: base64url SHA-256 of the leaf certificate's DER.
 */
export const x509Hash = (leaf: Uint8Array | string) =>
  createHash('sha256').update(certificateDer(leaf)).digest('base64url');

/**
 * Validates a request object's `x5c` (OpenID4VP wallet behaviour 2): the chain must lead to the
 * configured anchors (e.g. WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM) or, with `systemRoots`, to
 * Node's bundled Mozilla roots; with `expectedHash`, the leaf must match the `x509_hash` client id.
 */
export function validateX5c(
  x5c: string[],
  options: { trustAnchors?: string[]; systemRoots?: boolean; now: number; expectedHash?: string },
): Result<{ leaf: X509Certificate; x509Hash: string }, 'x5c'> {
  return runChecksSync<{ leaf: X509Certificate; x509Hash: string }, 'x5c'>(() => {
    ensure(
      Array.isArray(x5c) && x5c.length > 0 && x5c.every((c) => typeof c === 'string' && /^[A-Za-z0-9+/]+=*$/.test(c)),
      'x5c',
      'x5c must be a non-empty array of base64 DER certificates',
    );
    const anchors = [...(options.trustAnchors ?? []), ...(options.systemRoots ? rootCertificates : [])];
    const { leaf } = validatePath(
      x5c.map((c) => certificateDer(c)),
      anchors,
      options.now,
      'x5c',
    );
    const hash = x509Hash(new Uint8Array(leaf.raw));
    ensure(
      options.expectedHash === undefined || options.expectedHash === hash,
      'x5c',
      'the leaf certificate does not match the x509_hash client identifier',
    );
    return { leaf, x509Hash: hash };
  });
}
