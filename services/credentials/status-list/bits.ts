import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';

/**
 * The bytes of a status list. A Token Status List (draft-ietf-oauth-status-list §4.1) packs each
 * index's `bits` from the least significant bit of a byte upward; a W3C Bitstring Status List
 * (§3.1) puts index 0 at the most significant bit of byte 0. Both are compressed for transport:
 * ZLIB for the token, GZIP for the bitstring.
 */

/** One list's capacity: the W3C minimum (16 KiB of bits), used for both kinds. */
export const STATUS_LIST_SIZE = 131_072;
/** Bits per status in our Token Status Lists: VALID, INVALID, SUSPENDED (and one value left over). */
export const STATUS_BITS = 2;

/** Status Types (§7.1). */
const STATUS_VALID = 0x00;
export const STATUS_INVALID = 0x01;
export const STATUS_SUSPENDED = 0x02;

export type StatusName = 'valid' | 'revoked' | 'suspended';
export const STATUS_VALUE_OF: Record<StatusName, number> = {
  valid: STATUS_VALID,
  revoked: STATUS_INVALID,
  suspended: STATUS_SUSPENDED,
};
/** The registered name of a status value, as the draft spells it. */
export const statusTypeName = (value: number) =>
  ['VALID', 'INVALID', 'SUSPENDED', 'APPLICATION_SPECIFIC'][value] ?? `0x${value.toString(16).padStart(2, '0')}`;

const ALLOWED_BITS = [1, 2, 4, 8] as const;
export const isAllowedBits = (bits: unknown): bits is 1 | 2 | 4 | 8 => ALLOWED_BITS.includes(bits as 1);

/** Decompressed lists are refused past this (a compressed list of a few bytes may inflate to gigabytes). */
const MAX_LIST_BYTES = 4 * 1024 * 1024;

/** The token's byte array: `size` entries of `bits` each, every entry 0 but those given. */
export function packStatuses(size: number, bits: number, entries: Iterable<readonly [number, number]>): Uint8Array {
  const bytes = new Uint8Array(Math.ceil((size * bits) / 8));
  const perByte = 8 / bits;
  for (const [idx, value] of entries) {
    const shift = (idx % perByte) * bits;
    const byte = Math.floor(idx / perByte);
    bytes[byte] = (bytes[byte] & ~(((1 << bits) - 1) << shift)) | ((value & ((1 << bits) - 1)) << shift);
  }
  return bytes;
}

/** The value at `idx` of a token's byte array, or undefined when `idx` is beyond it. */
export function statusAt(bytes: Uint8Array, bits: number, idx: number): number | undefined {
  const perByte = 8 / bits;
  const byte = Math.floor(idx / perByte);
  if (!Number.isInteger(idx) || idx < 0 || byte >= bytes.length) return undefined;
  return (bytes[byte] >> ((idx % perByte) * bits)) & ((1 << bits) - 1);
}

/** How many entries hold each value (index = value). */
export function countStatuses(bytes: Uint8Array, bits: number): number[] {
  const counts = new Array<number>(1 << bits).fill(0);
  const perByte = 8 / bits;
  const mask = (1 << bits) - 1;
  for (const byte of bytes) {
    if (byte === 0) {
      counts[0] += perByte;
      continue;
    }
    for (let i = 0; i < perByte; i++) counts[(byte >> (i * bits)) & mask]++;
  }
  return counts;
}

export const compressTokenList = (bytes: Uint8Array): Buffer => deflateSync(bytes, { level: 9 });
export const inflateTokenList = (compressed: Uint8Array): Buffer =>
  inflateSync(compressed, { maxOutputLength: MAX_LIST_BYTES });

/** A W3C bitstring of `size` bits with the given indices set (index 0 is the leftmost bit). */
export function packBitstring(size: number, set: Iterable<number>): Uint8Array {
  const bytes = new Uint8Array(Math.ceil(size / 8));
  for (const idx of set) bytes[idx >> 3] |= 0x80 >> (idx & 7);
  return bytes;
}

/** The bit at `idx` of a W3C bitstring, or undefined beyond it. */
export function bitAt(bytes: Uint8Array, idx: number): number | undefined {
  if (!Number.isInteger(idx) || idx < 0 || idx >> 3 >= bytes.length) return undefined;
  return (bytes[idx >> 3] >> (7 - (idx & 7))) & 1;
}

/** `encodedList`: multibase base64url (`u`) of the GZIP-compressed bitstring (Bitstring Status List §2.1). */
export const encodeBitstring = (bytes: Uint8Array): string => `u${gzipSync(bytes, { level: 9 }).toString('base64url')}`;

/** The bitstring of an `encodedList`; throws unless it is multibase base64url of GZIP. */
export function decodeBitstring(encoded: string): Buffer {
  if (!encoded.startsWith('u') || !/^u[A-Za-z0-9_-]+$/.test(encoded))
    throw new Error('encodedList is not multibase base64url (it must start with "u")');
  return gunzipSync(Buffer.from(encoded.slice(1), 'base64url'), { maxOutputLength: MAX_LIST_BYTES });
}
