import { X509Certificate } from 'node:crypto';
import {
  HEADER_X5CHAIN,
  Tag,
  dataItemBytes,
  decodeCbor,
  issuerSignedItemDigest,
  msoDigestHash,
  parseCoseSign1,
  tdateSeconds,
  verifyCoseSign1,
  type CoseSign1,
} from '../credentials/mdoc/index.ts';
import { oauthError } from '../errors.ts';
import { isPrototypeName, nullRecord, recordFrom } from '../untrusted/keys.ts';

// All CBOR reading goes through the codec's strict decoder: cbor-x's decoder depends on tag handlers
// that @auth0/mdl and @owf/mdoc replace process-wide when they are imported.
const invalid = (detail: string) => oauthError('invalid_credential', `Not a decodable mdoc: ${detail}`);

interface MdocElement {
  namespace: string;
  identifier: string;
  value: unknown;
  digest_id: number;
  digest_matches: boolean;
}

export interface MdocDecoding {
  format: 'mso_mdoc';
  doctype: string;
  /** The MSO's `status` (draft-ietf-oauth-status-list §6.3), when it has one. */
  status_reference?: unknown;
  claims: Record<string, Record<string, unknown>>;
  elements: MdocElement[];
  issuer_signature: {
    verified: boolean;
    detail: string;
    certificate?: { subject: string; issuer: string; valid_from: string; valid_to: string };
  };
  holder_binding: { device_key?: unknown; device_signed: boolean; detail: string };
  validity: {
    signed?: string;
    valid_from?: string;
    valid_until?: string;
    state: 'valid' | 'expired' | 'not yet valid' | 'unknown';
  };
  digest_algorithm: string;
  warnings: string[];
}

const isMap = (v: unknown): v is Map<unknown, unknown> => v instanceof Map;
const get = (m: unknown, key: unknown) => (isMap(m) ? m.get(key) : undefined);
const bytes = (v: unknown): Uint8Array | undefined => (v instanceof Uint8Array ? v : undefined);

/** A tdate (tag 0) or epoch date (tag 1) as an ISO string, or undefined when it is not a valid one. */
function isoDate(value: unknown): string | undefined {
  try {
    return new Date(tdateSeconds(value) * 1000).toISOString();
  } catch {
    return undefined;
  }
}

const DATE_TAGS = new Set([0, 1, 1004]);

/**
 * Tags 0 and 1 (RFC 8949 §3.4.1-2) and 1004 (RFC 8943) carry a date as text or seconds; anything else
 * under them (a big integer, a map) is a malformed element, refused rather than shown without its tag.
 */
function dateOfTag(tag: Tag): string {
  if (tag.tag === 1004) {
    if (typeof tag.value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(tag.value)) return tag.value;
    throw invalid('tag 1004 (full-date, RFC 8943) must carry a YYYY-MM-DD text string');
  }
  const iso = isoDate(tag);
  if (iso !== undefined) return iso;
  throw invalid(
    tag.tag === 0
      ? 'tag 0 must carry an RFC 3339 date-time text string (RFC 8949 §3.4.1)'
      : 'tag 1 must carry epoch seconds within the range of a date (RFC 8949 §3.4.2)',
  );
}

/** CBOR as JSON: maps become prototype-free objects, byte strings base64url, big integers decimal strings. */
function toPlain(value: unknown): unknown {
  if (isMap(value)) return recordFrom([...value.entries()].map(([k, v]) => [String(k), toPlain(v)] as const));
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Tag)
    return DATE_TAGS.has(value.tag) ? dateOfTag(value) : { tag: value.tag, value: toPlain(value.value) };
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('base64url') };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function decodeOrInvalid(raw: Uint8Array, detail: string): unknown {
  try {
    return decodeCbor(raw);
  } catch {
    throw invalid(detail);
  }
}

function parseCbor(text: string): unknown {
  const trimmed = text.trim();
  const raw =
    /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0
      ? Buffer.from(trimmed, 'hex')
      : Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (raw.length === 0) throw invalid('empty input');
  return decodeOrInvalid(raw, 'not CBOR (give the bytes as base64url, base64 or hex)');
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
  let issuerAuth: CoseSign1;
  try {
    issuerAuth = parseCoseSign1(get(issuerSigned, 'issuerAuth'));
  } catch (error) {
    throw invalid(`issuerAuth: ${(error as Error).message}`);
  }
  const [, unprotected, payload] = issuerAuth;
  if (!payload) throw invalid('issuerAuth has no payload');
  const wrappedMso = decodeOrInvalid(payload, 'the MSO payload is not CBOR');
  const mso =
    wrappedMso instanceof Tag && wrappedMso.tag === 24 && bytes(wrappedMso.value)
      ? decodeOrInvalid(dataItemBytes(wrappedMso), 'the MSO payload is not CBOR')
      : wrappedMso;
  const warnings: string[] = [];
  const digestAlgorithm = String(get(mso, 'digestAlgorithm') ?? 'unknown');
  const hashName = msoDigestHash(digestAlgorithm);
  if (!hashName) throw invalid(`unsupported digestAlgorithm ${digestAlgorithm}`);
  const valueDigests = get(mso, 'valueDigests');

  const elements: MdocElement[] = [];
  const claims = nullRecord<Record<string, unknown>>();
  const nameSpaces = get(issuerSigned, 'nameSpaces');
  if (!isMap(nameSpaces)) throw invalid('nameSpaces must be a map');
  for (const [ns, items] of nameSpaces) {
    if (!Array.isArray(items)) throw invalid(`namespace ${String(ns)} must be an array`);
    for (const wrapped of items) {
      if (!(wrapped instanceof Tag) || wrapped.tag !== 24 || !bytes(wrapped.value))
        throw invalid('each IssuerSignedItem must be tag-24 wrapped bytes');
      const item = decodeOrInvalid(wrapped.value as Uint8Array, 'an IssuerSignedItem is not CBOR');
      const digestId = Number(get(item, 'digestID'));
      const identifier = String(get(item, 'elementIdentifier'));
      if (isPrototypeName(ns) || isPrototypeName(identifier))
        throw invalid(
          `namespace and element names must not be __proto__, constructor or prototype (${String(ns)}/${identifier})`,
        );
      const value = toPlain(get(item, 'elementValue'));
      const expected = bytes(get(get(valueDigests, ns), digestId));
      const actual = issuerSignedItemDigest(hashName, wrapped);
      const matches = expected !== undefined && Buffer.from(expected).equals(actual);
      if (!matches) warnings.push(`digest of ${String(ns)}/${identifier} does not match the MSO`);
      elements.push({ namespace: String(ns), identifier, value, digest_id: digestId, digest_matches: matches });
      (claims[String(ns)] ??= nullRecord())[identifier] = value;
    }
  }

  // IssuerAuth: COSE_Sign1 over Sig_structure ["Signature1", protected, h'', payload] (RFC 9052 §4.4).
  let issuer_signature: MdocDecoding['issuer_signature'] = {
    verified: false,
    detail: 'No document signer certificate in x5chain (label 33)',
  };
  const x5chain = get(unprotected, HEADER_X5CHAIN);
  const leaf = Array.isArray(x5chain) ? x5chain[0] : x5chain;
  if (bytes(leaf)) {
    try {
      const cert = new X509Certificate(Buffer.from(leaf));
      let ok = false;
      try {
        ok = verifyCoseSign1(issuerAuth, cert);
      } catch {
        // unsupported alg or unreadable protected header: reported as not verifying
      }
      issuer_signature = {
        verified: ok,
        detail: ok
          ? 'IssuerAuth signature verified with the document signer certificate (its chain to an IACA root is not checked here)'
          : 'The IssuerAuth signature does NOT verify',
        certificate: {
          subject: cert.subject,
          issuer: cert.issuer,
          valid_from: new Date(cert.validFrom).toISOString(),
          valid_to: new Date(cert.validTo).toISOString(),
        },
      };
    } catch {
      issuer_signature = { verified: false, detail: 'The document signer certificate could not be read' };
    }
  }

  const validityInfo = get(mso, 'validityInfo');
  const asIso = (v: unknown) =>
    isoDate(v) ?? (v instanceof Tag ? String(v.value) : typeof v === 'string' ? v : undefined);
  const validFrom = asIso(get(validityInfo, 'validFrom'));
  const validUntil = asIso(get(validityInfo, 'validUntil'));
  const state =
    !validFrom || !validUntil
      ? 'unknown'
      : options.nowMs < Date.parse(validFrom)
        ? 'not yet valid'
        : options.nowMs >= Date.parse(validUntil)
          ? 'expired'
          : 'valid';
  const deviceKey = get(get(mso, 'deviceKeyInfo'), 'deviceKey');
  const doctype = String(get(mso, 'docType') ?? docDoctype ?? 'unknown');
  if (docDoctype && docDoctype !== doctype) warnings.push('the document docType differs from the MSO docType');
  return {
    format: 'mso_mdoc',
    doctype,
    claims,
    elements,
    issuer_signature,
    holder_binding: {
      ...(deviceKey ? { device_key: toPlain(deviceKey) } : {}),
      device_signed: deviceSigned !== undefined,
      detail: deviceSigned
        ? 'DeviceSigned present; its signature depends on the session transcript, which is not given here'
        : 'No DeviceSigned: this is the issuer-signed part only',
    },
    validity: { signed: asIso(get(validityInfo, 'signed')), valid_from: validFrom, valid_until: validUntil, state },
    digest_algorithm: digestAlgorithm,
    ...(get(mso, 'status') !== undefined ? { status_reference: toPlain(get(mso, 'status')) } : {}),
    warnings,
  };
}
