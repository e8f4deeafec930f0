import { isMap } from '../mdoc/cbor.ts';

/**
 * The `status` claim of a Referenced Token (draft-ietf-oauth-status-list §6): `status_list: {idx, uri}`,
 * as a JSON object (SD-JWT VC) or a CBOR map with text keys (the mdoc MSO's `status`).
 */
export interface TokenStatusReference {
  idx: number;
  uri: string;
}

const member = (value: unknown, name: string): unknown =>
  isMap(value)
    ? value.get(name)
    : value && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, name)
      ? (value as Record<string, unknown>)[name]
      : undefined;

/**
 * The reference a `status` claim makes: undefined without one, `malformed` when `status_list` is there
 * but its `idx` is not a non-negative integer or its `uri` not an http(s) URI.
 */
export function tokenStatusReference(status: unknown): TokenStatusReference | 'malformed' | undefined {
  if (status === undefined) return undefined;
  const list = member(status, 'status_list');
  if (list === undefined) return undefined;
  const idx = member(list, 'idx');
  const uri = member(list, 'uri');
  if (typeof idx !== 'number' || !Number.isSafeInteger(idx) || idx < 0) return 'malformed';
  if (typeof uri !== 'string' || !/^https?:\/\//.test(uri)) return 'malformed';
  return { idx, uri };
}

/** The `status` member written into an SD-JWT VC or an MSO. */
export const statusClaim = (reference: TokenStatusReference) => ({
  status_list: { idx: reference.idx, uri: reference.uri },
});
