import { Encoder, Tag } from 'cbor-x';
import { decodeStrict } from './cbor-decode.ts';

/**
 * Deterministic CBOR (RFC 8949 §4.2.1) on top of cbor-x:
 * - every map, whether given as a Map or a plain object, is re-emitted with its keys sorted by the
 *   bytewise order of their encodings, and duplicate keys are refused;
 * - integers take their shortest form (cbor-x writes numbers beyond 32 bits as float64, so those
 *   become BigInt and are written as 64-bit integers; BigInts that fit 32 bits become numbers);
 * - definite lengths only, byte strings untagged.
 * Non-integer numbers stay float64 (cbor-x does not pick float16/32); mdoc structures carry none.
 */
const encoder = new Encoder({
  useRecords: false,
  mapsAsObjects: false,
  tagUint8Array: false,
  variableMapSize: true,
  pack: false,
});

export { Tag };

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};
const MAX_32 = 0xffffffff;

/**
 * Encodings of short text and small integer map keys, by key (bounded in count and size): mdoc maps
 * reuse a small vocabulary of keys ('digestID', 'elementValue', namespace and element names, digest
 * ids, COSE labels), and each is encoded only to sort. Keys can come from documents others issued,
 * so long ones are not kept.
 */
const keyEncodings = new Map<string | number, Buffer>();
const KEY_ENCODINGS_MAX = 1024;
const KEPT_TEXT_KEY_LENGTH = 64;
const reusableKey = (key: unknown): key is string | number =>
  (typeof key === 'string' && key.length <= KEPT_TEXT_KEY_LENGTH) ||
  (typeof key === 'number' && Number.isSafeInteger(key) && !Object.is(key, -0) && Math.abs(key) < 65_536);
function keyEncoding(key: unknown): Buffer {
  if (!reusableKey(key)) return encoder.encode(key);
  let bytes = keyEncodings.get(key);
  if (!bytes) {
    bytes = Buffer.from(encoder.encode(key)); // a copy: cbor-x may reuse its output buffer
    if (keyEncodings.size >= KEY_ENCODINGS_MAX)
      keyEncodings.delete(keyEncodings.keys().next().value as string | number);
    keyEncodings.set(key, bytes);
  }
  return bytes;
}

function canonical(value: unknown): unknown {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && (value > MAX_32 || value < -MAX_32 - 1)) return BigInt(value);
    return value;
  }
  if (typeof value === 'bigint')
    return value <= BigInt(MAX_32) && value >= -BigInt(MAX_32) - 1n ? Number(value) : value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Tag) return new Tag(canonical(value.value), value.tag);
  if (value instanceof Date) throw new Error('encode dates explicitly: tag 0 (tdate string) or tag 1004 (full-date)');
  const entries =
    value instanceof Map ? [...value.entries()] : isPlainObject(value) ? Object.entries(value) : undefined;
  if (!entries) return value;
  const keyed = entries.map(([k, v]) => {
    const ck = canonical(k);
    return { bytes: keyEncoding(ck), key: ck, value: canonical(v) };
  });
  keyed.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  for (let i = 1; i < keyed.length; i++)
    if (keyed[i].bytes.equals(keyed[i - 1].bytes)) throw new Error('duplicate map key');
  return new Map(keyed.map((e) => [e.key, e.value]));
}

/** Deterministic encoding of `value` (Maps and plain objects alike become sorted CBOR maps). */
export function encodeCbor(value: unknown): Uint8Array {
  const out = encoder.encode(canonical(value));
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * Decodes one CBOR item with maps as Maps and every tag kept as a `Tag` (so a tdate re-encodes to
 * the same bytes). Uses the strict decoder in cbor-decode.ts, not cbor-x's, whose tag handling is
 * process-wide state that other libraries change.
 */
export function decodeCbor(bytes: Uint8Array): unknown {
  return decodeStrict(bytes);
}

/** `#6.24(bstr .cbor value)`: an embedded, separately encoded data item. */
export const dataItem = (value: unknown) => new Tag(encodeCbor(value), 24);

/** The bytes inside a tag-24 data item. */
export function dataItemBytes(value: unknown): Uint8Array {
  if (!(value instanceof Tag) || value.tag !== 24 || !(value.value instanceof Uint8Array))
    throw new Error('expected a tag-24 embedded CBOR data item');
  return value.value;
}

/** A `tdate` (tag 0), whole seconds, UTC: ISO 18013-5 §7.1 forbids fractional seconds. */
export const tdate = (seconds: number) =>
  new Tag(new Date(Math.floor(seconds) * 1000).toISOString().replace('.000Z', 'Z'), 0);

/** A `full-date` (tag 1004, RFC 8943). */
export const fullDate = (isoDate: string) => new Tag(isoDate, 1004);

/** Seconds since the epoch of a decoded tdate (tag 0 text or tag 1 number). */
export function tdateSeconds(value: unknown): number {
  if (value instanceof Tag && value.tag === 0 && typeof value.value === 'string') {
    const ms = Date.parse(value.value);
    if (Number.isNaN(ms)) throw new Error(`not a date-time: ${value.value}`);
    return ms / 1000;
  }
  if (value instanceof Tag && value.tag === 1 && typeof value.value === 'number') return value.value;
  throw new Error('expected a tdate (tag 0)');
}

export const isMap = (v: unknown): v is Map<unknown, unknown> => v instanceof Map;
export const mapGet = (m: unknown, key: unknown) => (isMap(m) ? m.get(key) : undefined);
