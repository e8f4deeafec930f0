import { X509Certificate } from 'node:crypto';
import * as pkijs from 'pkijs';
import { CheckFailed, ensure } from '../result.ts';

/** Extended key usage of an mdoc document signer (ISO/IEC 18013-5 Annex B.1.4). */
export const MDL_DS_EKU = '1.0.18013.5.1.2';

/** KeyUsage bits (RFC 5280 §4.2.1.3) as they sit in the first byte of the BIT STRING. */
const DIGITAL_SIGNATURE = 0x80;
const KEY_CERT_SIGN = 0x04;

/** DER bytes of a certificate given as DER or PEM. */
export function certificateDer(cert: Uint8Array | string): Uint8Array {
  return typeof cert === 'string' ? new Uint8Array(new X509Certificate(cert).raw) : cert;
}

/** The first byte of the keyUsage BIT STRING, read with pkijs; undefined when the extension is absent. */
function keyUsage(cert: X509Certificate): number | undefined {
  const parsed = pkijs.Certificate.fromBER(new Uint8Array(cert.raw));
  const ext = parsed.extensions?.find((e) => e.extnID === '2.5.29.15');
  if (!ext) return undefined;
  const bits = (ext.parsedValue as { valueBlock?: { valueHexView?: Uint8Array } } | undefined)?.valueBlock?.valueHexView;
  return bits && bits.length > 0 ? bits[0] : 0;
}

const within = (cert: X509Certificate, nowSeconds: number) => nowSeconds * 1000 >= Date.parse(cert.validFrom) && nowSeconds * 1000 <= Date.parse(cert.validTo);

/**
 * Validates `x5chain` (leaf first) up to one of `trustedRoots` (RFC 5280 path, simplified to the
 * mdoc profile): each certificate issued and signed by the next, the last one by a trusted IACA;
 * every certificate valid at `now`; the IACA a CA with keyCertSign; the leaf a document signer
 * (digitalSignature, EKU 1.0.18013.5.1.2, not a CA). Failures throw `CheckFailed('chain', ...)`.
 */
export function validateDocumentSignerChain(x5chain: Uint8Array[], trustedRoots: (Uint8Array | string)[], nowSeconds: number): { leaf: X509Certificate; root: X509Certificate } {
  ensure(x5chain.length > 0, 'chain', 'x5chain is empty');
  ensure(trustedRoots.length > 0, 'chain', 'no trusted IACA root is configured');
  let chain: X509Certificate[];
  let roots: X509Certificate[];
  try {
    chain = x5chain.map((c) => new X509Certificate(c));
    roots = trustedRoots.map((r) => new X509Certificate(typeof r === 'string' ? r : Buffer.from(r)));
  } catch {
    throw new CheckFailed('chain', 'a certificate cannot be parsed');
  }
  const leaf = chain[0];
  const rootOf = (cert: X509Certificate) => roots.find((r) => r.raw.equals(cert.raw) || (cert.checkIssued(r) && cert.verify(r.publicKey)));
  let current = leaf;
  let root = rootOf(current);
  for (let i = 1; !root && i < chain.length; i++) {
    const issuer = chain[i];
    ensure(current.checkIssued(issuer) && current.verify(issuer.publicKey), 'chain', `certificate ${i - 1} is not issued and signed by certificate ${i} of x5chain`);
    ensure(issuer.ca, 'chain', `certificate ${i} of x5chain issues certificates but is not a CA`);
    current = issuer;
    root = rootOf(current);
  }
  ensure(root, 'chain', 'the document signer does not chain to a trusted IACA root');
  const path = [...chain.slice(0, chain.indexOf(current) + 1), root];
  for (const cert of path) ensure(within(cert, nowSeconds), 'chain', `certificate "${cert.subject.replace(/\n/g, ', ')}" is not valid at the verification time (${cert.validFrom} - ${cert.validTo})`);
  ensure(root.ca, 'chain', 'the IACA root is not a CA');
  const rootUsage = keyUsage(root);
  ensure(rootUsage === undefined || (rootUsage & KEY_CERT_SIGN) !== 0, 'chain', 'the IACA root key usage lacks keyCertSign');
  ensure(!leaf.ca, 'chain', 'the document signer certificate must not be a CA');
  const leafUsage = keyUsage(leaf);
  ensure(leafUsage !== undefined && (leafUsage & DIGITAL_SIGNATURE) !== 0, 'chain', 'the document signer key usage lacks digitalSignature');
  ensure((leaf.keyUsage ?? []).includes(MDL_DS_EKU), 'chain', `the document signer lacks extended key usage ${MDL_DS_EKU}`);
  return { leaf, root };
}
