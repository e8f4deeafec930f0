import { createHash } from 'node:crypto';

/** Names whose values are secrets or bearer material and never enter the event log. */
const SECRET = /token|secret|assertion|^code$|password|verifier|^dpop$|authorization|cookie|claim_token|user_code|^svid$/i;

export const fingerprint = (value: string) => `[redacted sha256:${createHash('sha256').update(value).digest('base64url').slice(0, 12)}]`;

/** A deep copy with every secret-named value replaced by a fingerprint. */
export function redact(value: unknown, key = ''): unknown {
  if (key === 'tokens' || key === 'payload' || key === 'header') return value; // decoded claims, not bearer material
  if (typeof value === 'string') {
    if (SECRET.test(key)) return fingerprint(value);
    if (/^https?:\/\//.test(value)) return redactUrl(value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, k)]));
  return value;
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    for (const [k, v] of [...u.searchParams]) if (SECRET.test(k)) u.searchParams.set(k, fingerprint(v));
    return u.href;
  } catch {
    return url;
  }
}
