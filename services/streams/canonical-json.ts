import canonicalize from 'canonicalize';

/** RFC 8785 JSON Canonicalization Scheme: the one text of a JSON value, for digests. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('The value has no JSON text');
  return text;
}
