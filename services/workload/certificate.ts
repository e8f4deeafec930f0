import { X509Certificate as NodeCertificate } from 'node:crypto';
import * as pkijs from 'pkijs';
import { CheckFailed } from '../credentials/result.ts';
import { validatePath } from '../credentials/x509/path.ts';
import { fingerprint256 } from './der.ts';

/**
 * X.509 certificate reading for the workload identity service: structure and extensions with pkijs,
 * distinguished names and public keys with node:crypto, path validation with pkijs'
 * CertificateChainValidationEngine. Nothing here signs or verifies by hand.
 */
export interface CertificateInfo {
  serial: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  signatureAlgorithm: string;
  publicKey: { kty: string; crv?: string; bits?: number };
  uriSans: string[];
  dnsSans: string[];
  otherSanCount: number;
  isCa: boolean;
  /** Absent when the certificate has no key usage extension. */
  keyUsage?: string[];
  extendedKeyUsage?: string[];
  fingerprint: string;
}

export class CertificateParseError extends Error {}

const OID = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  extKeyUsage: '2.5.29.37',
};

const SIGNATURE_ALGORITHMS: Record<string, string> = {
  '1.2.840.10045.4.3.2': 'ecdsa-with-SHA256',
  '1.2.840.10045.4.3.3': 'ecdsa-with-SHA384',
  '1.2.840.10045.4.3.4': 'ecdsa-with-SHA512',
  '1.2.840.113549.1.1.11': 'sha256WithRSAEncryption',
  '1.2.840.113549.1.1.12': 'sha384WithRSAEncryption',
  '1.2.840.113549.1.1.13': 'sha512WithRSAEncryption',
  '1.2.840.113549.1.1.10': 'RSASSA-PSS',
  '1.3.101.112': 'Ed25519',
};

const KEY_PURPOSES: Record<string, string> = {
  '1.3.6.1.5.5.7.3.1': 'serverAuth',
  '1.3.6.1.5.5.7.3.2': 'clientAuth',
  '1.3.6.1.5.5.7.3.3': 'codeSigning',
  '1.3.6.1.5.5.7.3.4': 'emailProtection',
};

const KEY_USAGE_BITS = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
];

/** Parsed pkijs certificate, or CertificateParseError. */
function parsePkijs(der: Uint8Array): pkijs.Certificate {
  try {
    return pkijs.Certificate.fromBER(new Uint8Array(der));
  } catch (error) {
    throw new CertificateParseError(`not a DER X.509 certificate (${(error as Error).message.slice(0, 120)})`);
  }
}

function keyUsageOf(ext: pkijs.Extension): string[] {
  const bits =
    (ext.parsedValue as { valueBlock?: { valueHexView?: Uint8Array } } | undefined)?.valueBlock?.valueHexView ??
    new Uint8Array();
  return KEY_USAGE_BITS.filter((_, i) => i >> 3 < bits.length && ((bits[i >> 3] >> (7 - (i & 7))) & 1) === 1);
}

/** The serial as lower-case hex, without the DER sign byte (as OpenSSL and node:crypto show it). */
function serialHex(bytes: Uint8Array): string {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return Buffer.from(bytes.subarray(start)).toString('hex');
}

function distinguishedName(text: string): string {
  return text.split('\n').filter(Boolean).join(', ');
}

export function certificateInfo(der: Uint8Array): CertificateInfo {
  const cert = parsePkijs(der);
  let node: NodeCertificate;
  try {
    node = new NodeCertificate(Buffer.from(der));
  } catch (error) {
    throw new CertificateParseError(`not a DER X.509 certificate (${(error as Error).message.slice(0, 120)})`);
  }
  const uriSans: string[] = [];
  const dnsSans: string[] = [];
  let otherSanCount = 0;
  let isCa = false;
  let keyUsage: string[] | undefined;
  let extendedKeyUsage: string[] | undefined;
  for (const ext of cert.extensions ?? []) {
    if (ext.extnID === OID.subjectAltName) {
      for (const name of (ext.parsedValue as pkijs.AltName | undefined)?.altNames ?? []) {
        if (name.type === 6) uriSans.push(String(name.value));
        else if (name.type === 2) dnsSans.push(String(name.value));
        else otherSanCount++;
      }
    } else if (ext.extnID === OID.basicConstraints) {
      isCa = Boolean((ext.parsedValue as pkijs.BasicConstraints | undefined)?.cA);
    } else if (ext.extnID === OID.keyUsage) {
      keyUsage = keyUsageOf(ext);
    } else if (ext.extnID === OID.extKeyUsage) {
      extendedKeyUsage = ((ext.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? []).map(
        (p) => KEY_PURPOSES[p] ?? p,
      );
    }
  }
  const jwk = node.publicKey.export({ format: 'jwk' }) as { kty?: string; crv?: string };
  const details = node.publicKey.asymmetricKeyDetails;
  return {
    serial: serialHex(cert.serialNumber.valueBlock.valueHexView),
    subject: distinguishedName(node.subject),
    issuer: distinguishedName(node.issuer),
    notBefore: cert.notBefore.value,
    notAfter: cert.notAfter.value,
    signatureAlgorithm:
      SIGNATURE_ALGORITHMS[cert.signatureAlgorithm.algorithmId] ?? cert.signatureAlgorithm.algorithmId,
    publicKey: {
      kty: jwk.kty ?? String(node.publicKey.asymmetricKeyType),
      ...(jwk.crv ? { crv: jwk.crv } : {}),
      ...(details?.modulusLength ? { bits: details.modulusLength } : {}),
    },
    uriSans,
    dnsSans,
    otherSanCount,
    isCa,
    ...(keyUsage ? { keyUsage } : {}),
    ...(extendedKeyUsage ? { extendedKeyUsage } : {}),
    fingerprint: fingerprint256(der),
  };
}

/** The certificate's public key as a JWK (public members only). */
export function publicJwk(der: Uint8Array): Record<string, unknown> {
  return new NodeCertificate(Buffer.from(der)).publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
}

export interface ChainVerdict {
  ok: boolean;
  detail: string;
  /** Subjects from the leaf to the trust anchor, when a path was found. */
  path?: string[];
}

/**
 * Does `leaf` (with the `intermediates` it came with) chain to one of `anchors` at time `at`? The
 * path is validated by the one X.509 path validator (credentials/x509/path.ts, on pkijs). When it
 * fails, the detail says whether no anchor names the leaf's issuer or the signature does not verify.
 */
export async function verifyChain(
  leaf: Uint8Array,
  intermediates: readonly Uint8Array[],
  anchors: readonly Uint8Array[],
  at: Date,
): Promise<ChainVerdict> {
  if (anchors.length === 0) return { ok: false, detail: 'no X.509 authorities to chain to' };
  let failure: string;
  try {
    const { path } = await validatePath(
      [leaf, ...intermediates],
      [...anchors],
      Math.floor(at.getTime() / 1000),
      'chain',
    );
    const subjects = path.map((c) => distinguishedName(c.subject));
    return {
      ok: true,
      detail: `chains to an authority of the bundle (${subjects.length - 1} signature(s) verified)`,
      path: subjects,
    };
  } catch (error) {
    if (!(error instanceof CheckFailed)) throw error;
    failure = error.reason;
  }
  const leafCert = parsePkijs(leaf);
  const issuers = [...intermediates, ...anchors].map(parsePkijs).filter((c) => c.subject.isEqual(leafCert.issuer));
  if (issuers.length === 0)
    return { ok: false, detail: 'no authority in the bundle (or the chain sent) names the issuer of this certificate' };
  let signed = false;
  for (const issuer of issuers) {
    try {
      if (await leafCert.verify(issuer)) signed = true;
    } catch {
      // a key the engine cannot use is a failed verification
    }
  }
  if (!signed)
    return {
      ok: false,
      detail: 'the certificate signature does not verify with the key of its issuer (altered or forged certificate)',
    };
  return { ok: false, detail: `path validation failed: ${failure}` };
}
