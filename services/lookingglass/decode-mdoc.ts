import { Decoder, Encoder, Tag } from 'cbor-x';
import { X509Certificate, createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { OAuthError } from '../errors.ts';

const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });
const encoder = new Encoder({ mapsAsObjects: false, useRecords: false, tagUint8Array: false });
const invalid = (detail: string) => new OAuthError('invalid_credential', `Not a decodable mdoc: ${detail}`);

export interface MdocElement {
  namespace: string;
  identifier: string;
  value: unknown;
  digest_id: number;
  digest_matches: boolean;
}

export interface MdocDecoding {
  format: 'mso_mdoc';
  doctype: string;
  claims: Record<string, Record<string, unknown>>;
  elements: MdocElement[];
  issuer_signature: { verified: boolean; detail: string; certificate?: { subject: string; issuer: string; valid_from: string; valid_to: string } };
  holder_binding: { device_key?: unknown; device_signed: boolean; detail: string };
  validity: { signed?: string; valid_from?: string; valid_until?: string; state: 'valid' | 'expired' | 'not yet valid' | 'unknown' };
  digest_algorithm: string;
  warnings: string[];
}

const isMap = (v: unknown): v is Map<unknown, unknown> => v instanceof Map;
const get = (m: unknown, key: unknown) => (isMap(m) ? m.get(key) : undefined);
const bytes = (v: unknown): Uint8Array | undefined => (v instanceof Uint8Array ? v : undefined);

/** The digest input of an IssuerSignedItem: its tag-24 wrapping, encoded (ISO 18013-5 §9.1.2.5). */
const tag24Bytes = (inner: Uint8Array) => encoder.encode(new Tag(inner, 24));

function toPlain(value: unknown): unknown {
  if (isMap(value)) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), toPlain(v)]));
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Tag) return value.tag === 1004 || value.tag === 0 ? value.value : { tag: value.tag, value: toPlain(value.value) };
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('base64url') };
  if (value instanceof Date) return value.toISOString();
  return value;
}

export function parseCbor(text: string): unknown {
  const trimmed = text.trim();
  const raw = /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0 ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (raw.length === 0) throw invalid('empty input');
  try {
    return decoder.decode(raw);
  } catch {
    throw invalid('not CBOR (give the bytes as base64url, base64 or hex)');
  }
}

/** Finds the first Document (or bare IssuerSigned) in a DeviceResponse, Document or IssuerSigned. */
function documentOf(root: unknown): { doctype?: string; issuerSigned: Map<unknown, unknown>; deviceSigned?: unknown } {
  const documents = get(root, 'documents');
  const doc = Array.isArray(documents) ? documents[0] : root;
  const issuerSigned = get(doc, 'issuerSigned') ?? (get(doc, 'nameSpaces') ? doc : undefined);
  if (!isMap(issuerSigned)) throw invalid('no issuerSigned structure (nameSpaces and issuerAuth)');
  return { doctype: get(doc, 'docType') as string | undefined, issuerSigned, deviceSigned: get(doc, 'deviceSigned') };
}

export function looksLikeMdoc(text: string): boolean {
  const t = text.trim();
  return !t.includes('.') && !t.startsWith('{') && /^[A-Za-z0-9_\-+/=]+$/.test(t);
}

/** Decodes an mdoc: namespaces and elements, digests checked against the MSO, IssuerAuth signature, validity. */
export function decodeMdoc(text: string, options: { nowMs: number }): MdocDecoding {
  const { doctype: docDoctype, issuerSigned, deviceSigned } = documentOf(parseCbor(text));
  const issuerAuth = get(issuerSigned, 'issuerAuth');
  if (!Array.isArray(issuerAuth) || issuerAuth.length !== 4) throw invalid('issuerAuth must be a COSE_Sign1 array of four');
  const [protectedBytes, unprotected, payload, signature] = issuerAuth as [Uint8Array, Map<unknown, unknown>, Uint8Array, Uint8Array];
  if (!bytes(protectedBytes) || !bytes(payload) || !bytes(signature)) throw invalid('issuerAuth members have the wrong types');
  let mso: unknown;
  try {
    const wrapped = decoder.decode(payload);
    mso = wrapped instanceof Tag && wrapped.tag === 24 ? decoder.decode(wrapped.value as Uint8Array) : wrapped;
  } catch {
    throw invalid('the MSO payload is not CBOR');
  }
  const warnings: string[] = [];
  const digestAlgorithm = String(get(mso, 'digestAlgorithm') ?? 'unknown');
  const hashName = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' }[digestAlgorithm];
  if (!hashName) throw invalid(`unsupported digestAlgorithm ${digestAlgorithm}`);
  const valueDigests = get(mso, 'valueDigests');

  const elements: MdocElement[] = [];
  const claims: Record<string, Record<string, unknown>> = {};
  const nameSpaces = get(issuerSigned, 'nameSpaces');
  if (!isMap(nameSpaces)) throw invalid('nameSpaces must be a map');
  for (const [ns, items] of nameSpaces) {
    if (!Array.isArray(items)) throw invalid(`namespace ${String(ns)} must be an array`);
    for (const wrapped of items) {
      if (!(wrapped instanceof Tag) || wrapped.tag !== 24 || !bytes(wrapped.value)) throw invalid('each IssuerSignedItem must be tag-24 wrapped bytes');
      const item = decoder.decode(wrapped.value as Uint8Array);
      const digestId = Number(get(item, 'digestID'));
      const identifier = String(get(item, 'elementIdentifier'));
      const value = toPlain(get(item, 'elementValue'));
      const expected = bytes(get(get(valueDigests, ns), digestId));
      const actual = createHash(hashName).update(tag24Bytes(wrapped.value as Uint8Array)).digest();
      const matches = expected !== undefined && Buffer.from(expected).equals(actual);
      if (!matches) warnings.push(`digest of ${String(ns)}/${identifier} does not match the MSO`);
      elements.push({ namespace: String(ns), identifier, value, digest_id: digestId, digest_matches: matches });
      (claims[String(ns)] ??= {})[identifier] = value;
    }
  }

  // IssuerAuth: COSE_Sign1 over Sig_structure ["Signature1", protected, h'', payload] (RFC 9052 §4.4).
  let issuer_signature: MdocDecoding['issuer_signature'] = { verified: false, detail: 'No document signer certificate in x5chain (label 33)' };
  const x5chain = get(unprotected, 33);
  const leaf = Array.isArray(x5chain) ? x5chain[0] : x5chain;
  if (bytes(leaf)) {
    try {
      const cert = new X509Certificate(Buffer.from(leaf));
      const toBeSigned = encoder.encode(['Signature1', protectedBytes, new Uint8Array(0), payload]);
      const protectedHeader = protectedBytes.length ? decoder.decode(protectedBytes) : new Map();
      const alg = get(protectedHeader, 1);
      const hash = alg === -7 ? 'sha256' : alg === -35 ? 'sha384' : alg === -36 ? 'sha512' : undefined;
      const ok = hash !== undefined && verifySignature(hash, toBeSigned, { key: createPublicKey(cert.publicKey.export({ format: 'pem', type: 'spki' })), dsaEncoding: 'ieee-p1363' }, signature);
      issuer_signature = {
        verified: ok,
        detail: ok ? 'IssuerAuth signature verified with the document signer certificate (its chain to an IACA root is not checked here)' : 'The IssuerAuth signature does NOT verify',
        certificate: { subject: cert.subject, issuer: cert.issuer, valid_from: new Date(cert.validFrom).toISOString(), valid_to: new Date(cert.validTo).toISOString() },
      };
    } catch {
      issuer_signature = { verified: false, detail: 'The document signer certificate could not be read' };
    }
  }

  const validityInfo = get(mso, 'validityInfo');
  const asIso = (v: unknown) => (v instanceof Date ? v.toISOString() : v instanceof Tag ? String(v.value) : typeof v === 'string' ? v : undefined);
  const validFrom = asIso(get(validityInfo, 'validFrom'));
  const validUntil = asIso(get(validityInfo, 'validUntil'));
  const state = !validFrom || !validUntil ? 'unknown' : options.nowMs < Date.parse(validFrom) ? 'not yet valid' : options.nowMs >= Date.parse(validUntil) ? 'expired' : 'valid';
  const deviceKey = get(get(mso, 'deviceKeyInfo'), 'deviceKey');
  const doctype = String(get(mso, 'docType') ?? docDoctype ?? 'unknown');
  if (docDoctype && docDoctype !== doctype) warnings.push('the document docType differs from the MSO docType');
  return {
    format: 'mso_mdoc',
    doctype,
    claims,
    elements,
    issuer_signature,
    holder_binding: { ...(deviceKey ? { device_key: toPlain(deviceKey) } : {}), device_signed: deviceSigned !== undefined, detail: deviceSigned ? 'DeviceSigned present; its signature depends on the session transcript, which is not given here' : 'No DeviceSigned: this is the issuer-signed part only' },
    validity: { signed: asIso(get(validityInfo, 'signed')), valid_from: validFrom, valid_until: validUntil, state },
    digest_algorithm: digestAlgorithm,
    warnings,
  };
}
