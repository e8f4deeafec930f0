import { createHash } from 'node:crypto';

/**
 * Transaction data (OpenID4VP 1.0 §5.1 and §8.4): each entry is a base64url-encoded JSON object with
 * `type` and `credential_ids`, bound into a presentation by a hash of the encoded string itself
 * (Appendix B.3.3: `transaction_data_hashes` in the SD-JWT VC's KB-JWT). The verifier and the wallet
 * harness share this module: the demo types, how an entry is read, and how it is hashed.
 */

/** The two demo types this project defines (docs/verifier.md), named collision-resistantly (§5.1). */
const PAYMENT_CONFIRMATION = 'urn:portico:transaction-data:payment-confirmation';
const DOCUMENT_SIGNING = 'urn:portico:transaction-data:document-signing';

/**
 * Where an mdoc carries its transaction hashes: device-signed data elements `transaction_data_hashes`
 * ([tstr]) and `transaction_data_hashes_alg` (tstr) of this namespace, covered by the device signature
 * (OpenID4VP 1.0 Appendix B.2 leaves the element to each doctype; this is the namespace of the
 * OpenID4VP working group's proposal, as wallets in the field use it; docs/decisions.md).
 */
export const MDOC_TRANSACTION_NAMESPACE = 'net.openid.openid4vc';

/** Hash algorithms by their IANA "Named Information" names; sha-256 is the default and always supported. */
const HASH_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['sha-256', 'sha256'],
  ['sha-384', 'sha384'],
  ['sha-512', 'sha512'],
]);
export const SUPPORTED_HASH_ALGS = [...HASH_FUNCTIONS.keys()];
export const DEFAULT_HASH_ALG = 'sha-256';
const MAX_ENTRIES = 10;
const MAX_ENCODED_LENGTH = 8192;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** One entry as read: the string as sent (what is hashed) and the object it encodes. */
export interface TransactionEntry {
  index: number;
  encoded: string;
  type: string;
  credentialIds: string[];
  /** The algorithms the entry allows; `explicit` when it named them (then the answer must name its choice). */
  hashAlgs: string[];
  explicitAlgs: boolean;
  /** Whether the type is one of the demo types, whose fields were checked. */
  known: boolean;
  /** The members beyond the common ones: the type's fields (shown raw for unknown types). */
  fields: Record<string, unknown>;
}

export class TransactionDataError extends Error {}

const COMMON = new Set(['type', 'credential_ids', 'transaction_data_hashes_alg']);
const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.trim() !== '' && value.length <= max;

/** The field rules of each demo type: a reason for the first field that breaks them, or nothing. */
const TYPE_RULES: ReadonlyMap<string, (fields: Record<string, unknown>) => string | undefined> = new Map([
  [
    PAYMENT_CONFIRMATION,
    (fields) => {
      if (typeof fields.amount !== 'string' || !/^(0|[1-9]\d{0,11})(\.\d{1,4})?$/.test(fields.amount))
        return 'amount must be a decimal string such as "42.50"';
      if (Number(fields.amount) <= 0) return 'amount must be above zero';
      if (typeof fields.currency !== 'string' || !/^[A-Z]{3}$/.test(fields.currency))
        return 'currency must be an ISO 4217 code such as "EUR"';
      if (!isText(fields.payee, 200)) return 'payee must be a name of at most 200 characters';
      return unknownField(fields, ['amount', 'currency', 'payee']);
    },
  ],
  [
    DOCUMENT_SIGNING,
    (fields) => {
      if (typeof fields.document_digest !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(fields.document_digest))
        return 'document_digest must be the base64url SHA-256 of the document (43 characters)';
      if (!isText(fields.document_name, 200)) return 'document_name must be a name of at most 200 characters';
      return unknownField(fields, ['document_digest', 'document_name']);
    },
  ],
]);

/** §8.5: an object of a known type with a field its type does not define is invalid. */
function unknownField(fields: Record<string, unknown>, allowed: string[]): string | undefined {
  const extra = Object.keys(fields).find((name) => !allowed.includes(name));
  return extra === undefined ? undefined : `the field ${JSON.stringify(extra.slice(0, 64))} is not one of this type`;
}

/** Reads one entry's object (already decoded), naming the first rule it breaks. */
function entryOf(index: number, encoded: string, value: unknown): TransactionEntry {
  const at = `transaction_data[${index}]`;
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new TransactionDataError(`${at} is not a JSON object`);
  const object = value as Record<string, unknown>;
  if (!isText(object.type, 200)) throw new TransactionDataError(`${at}.type must be a string`);
  const ids = object.credential_ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => !isText(id, 200)))
    throw new TransactionDataError(`${at}.credential_ids must be a non-empty array of credential query ids`);
  const algs = object.transaction_data_hashes_alg;
  if (algs !== undefined && (!Array.isArray(algs) || algs.length === 0 || algs.some((a) => typeof a !== 'string')))
    throw new TransactionDataError(`${at}.transaction_data_hashes_alg must be a non-empty array of strings`);
  const fields = Object.create(null) as Record<string, unknown>;
  for (const [name, member] of Object.entries(object)) if (!COMMON.has(name)) fields[name] = member;
  const rule = TYPE_RULES.get(object.type);
  const broken = rule?.(fields);
  if (broken) throw new TransactionDataError(`${at} (${object.type}): ${broken}`);
  return {
    index,
    encoded,
    type: object.type,
    credentialIds: [...new Set(ids as string[])],
    hashAlgs: (algs as string[] | undefined) ?? [DEFAULT_HASH_ALG],
    explicitAlgs: algs !== undefined,
    known: rule !== undefined,
    fields,
  };
}

/** The request parameter as a wallet receives it: a non-empty array of base64url strings. */
export function decodeTransactionData(value: unknown): TransactionEntry[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ENTRIES)
    throw new TransactionDataError(`transaction_data must be a non-empty array of at most ${MAX_ENTRIES} strings`);
  return value.map((encoded, index) => {
    if (typeof encoded !== 'string' || encoded.length > MAX_ENCODED_LENGTH || !BASE64URL.test(encoded))
      throw new TransactionDataError(`transaction_data[${index}] is not a base64url string`);
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    } catch {
      throw new TransactionDataError(`transaction_data[${index}] does not decode to JSON`);
    }
    return entryOf(index, encoded, decoded);
  });
}

/** The creator's objects, checked and encoded as the request carries them (§5.1). */
export function encodeTransactionData(objects: unknown): TransactionEntry[] {
  if (!Array.isArray(objects) || objects.length === 0 || objects.length > MAX_ENTRIES)
    throw new TransactionDataError(`transaction_data must be a non-empty array of at most ${MAX_ENTRIES} objects`);
  return objects.map((object, index) => {
    const encoded = Buffer.from(JSON.stringify(object ?? null), 'utf8').toString('base64url');
    if (encoded.length > MAX_ENCODED_LENGTH)
      throw new TransactionDataError(
        `transaction_data[${index}] is longer than ${MAX_ENCODED_LENGTH} characters encoded`,
      );
    return entryOf(index, encoded, object);
  });
}

/** Appendix B.3.3: the hash is over the string received, not over what it decodes to. */
export function transactionDataHash(encoded: string, alg: string): string {
  const fn = HASH_FUNCTIONS.get(alg);
  if (!fn) throw new TransactionDataError(`the hash algorithm ${JSON.stringify(alg.slice(0, 32))} is not supported`);
  return createHash(fn).update(encoded, 'utf8').digest('base64url');
}

export const hashAlgSupported = (alg: unknown): boolean => typeof alg === 'string' && HASH_FUNCTIONS.has(alg);

/** An entry in words, for a consent page: what the holder is asked to authorize. */
function describeTransaction(entry: TransactionEntry): string {
  const f = entry.fields;
  if (entry.type === PAYMENT_CONFIRMATION) return `Pay ${String(f.amount)} ${String(f.currency)} to ${String(f.payee)}`;
  if (entry.type === DOCUMENT_SIGNING)
    return `Sign the document ${String(f.document_name)} (SHA-256 ${String(f.document_digest)})`;
  return `A transaction of the unknown type ${entry.type}: ${JSON.stringify(f).slice(0, 500)}`;
}

/** What `/api/resolve` and the looking glass show of an entry. */
export function transactionView(entry: TransactionEntry): {
  index: number;
  type: string;
  known_type: boolean;
  credential_ids: string[];
  transaction_data_hashes_alg: string[];
  fields: Record<string, unknown>;
  summary: string;
} {
  return {
    index: entry.index,
    type: entry.type,
    known_type: entry.known,
    credential_ids: entry.credentialIds,
    transaction_data_hashes_alg: entry.hashAlgs,
    fields: { ...entry.fields },
    summary: describeTransaction(entry),
  };
}
