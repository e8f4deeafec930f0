/**
 * Values that differ on every run by nature: ids, times, nonces, codes, state, signatures,
 * durations. A diff shows them as volatile and never reports them as differences.
 */

/** Field names whose values are volatile (the last segment of a JSON pointer, lower-cased). */
const VOLATILE_NAMES = new Set([
  'id',
  'jti',
  'iat',
  'exp',
  'nbf',
  'auth_time',
  'nonce',
  'c_nonce',
  'state',
  'code',
  'code_verifier',
  'code_challenge',
  'pre-authorized_code',
  'tx_code',
  'issuer_state',
  'access_token',
  'refresh_token',
  'id_token',
  'client_assertion',
  'assertion',
  'request',
  'request_uri',
  'response_code',
  'transaction_id',
  'notification_id',
  'claim_token',
  'signature',
  'sid',
  'at_hash',
  'c_hash',
  's_hash',
  'jkt',
  'x',
  'y',
  'n',
  'e',
  'dpop',
  'dpop-nonce',
  'authorization',
  'date',
  'etag',
  'last-modified',
  'x-request-id',
  'duration_ms',
  'time',
  'timestamp',
  'expires_in',
  'proof',
  'proofs',
  'vp_token',
  'credential',
  'credentials',
  'key_attestation',
  'kb_jwt',
]);

const RANDOM_LOOKING = /^[A-Za-z0-9_~+/=.:-]{16,}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const REDACTED = /^\[redacted\b/;

/** A token or id: long, without spaces, with letters and digits mixed (never a scope, a URL path or a word). */
const looksRandom = (value: string) => RANDOM_LOOKING.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value);

/** A field name is volatile when it names an id, a time or a secret (`*_id`, `*_at`, `*_hash` included). */
export function isVolatileName(name: string): boolean {
  const key = name.toLowerCase();
  if (VOLATILE_NAMES.has(key)) return true;
  if (key === 'client_id' || key === 'credential_configuration_id' || key === 'grant_type') return false;
  return /(_id|_at|_hash|_uri_id|-id)$/.test(key);
}

/** Two different values that are both of a volatile kind: random-looking tokens, times, redacted secrets. */
export function isVolatileValuePair(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  if (REDACTED.test(a) && REDACTED.test(b)) return true;
  if (TIMESTAMP.test(a) && TIMESTAMP.test(b)) return true;
  if (/^https?:\/\//.test(a) && /^https?:\/\//.test(b)) return normalizeUrl(a) === normalizeUrl(b);
  return looksRandom(a) && looksRandom(b);
}

/**
 * A URL with its volatile parts replaced: random-looking path segments by `{id}`, volatile query
 * values by `{volatile}`; two URLs equal after this differ only in volatile parts.
 */
export function normalizeUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  const path = url.pathname
    .split('/')
    .map((segment) => (looksRandom(decodeURIComponent(segment)) ? '{id}' : segment))
    .join('/');
  const query = [...url.searchParams]
    .map(([k, v]) => `${k}=${isVolatileName(k) || looksRandom(v) ? '{volatile}' : v}`)
    .join('&');
  return `${url.origin}${path}${query ? `?${query}` : ''}`;
}
