import { Tag } from 'cbor-x';
import { recordFrom } from '../../untrusted/keys.ts';

/**
 * mdoc element values as JSON, the way every view of this project shows them (wallet session,
 * verifier result): byte strings (a portrait, a signature) as base64url, `tdate` and `full-date`
 * (tags 0, 1004) as their text and epoch dates (tag 1) as ISO text, maps and nested structures
 * (driving_privileges) whole as null-prototype records, big integers as decimal strings.
 */
export function mdocValueAsJson(value: unknown): unknown {
  if (value instanceof Tag) {
    if (value.tag === 1 && typeof value.value === 'number' && Number.isFinite(value.value))
      return new Date(value.value * 1000).toISOString();
    return mdocValueAsJson(value.value);
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64url');
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Map)
    return recordFrom([...value.entries()].map(([k, v]) => [String(k), mdocValueAsJson(v)] as const));
  if (Array.isArray(value)) return value.map(mdocValueAsJson);
  if (typeof value === 'bigint') return value.toString();
  if (value !== null && typeof value === 'object')
    return recordFrom(Object.entries(value).map(([k, v]) => [k, mdocValueAsJson(v)] as const));
  return value;
}
