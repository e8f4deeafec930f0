/**
 * SPIFFE IDs (SPIFFE-ID standard §2): `spiffe://<trust domain>[/<path>]`. The trust domain is lower
 * case letters, digits, `.`, `-` and `_`; path segments are non-empty, made of letters, digits, `.`,
 * `-` and `_`, and are neither `.` nor `..`. No port, user info, query, fragment or trailing slash.
 */
export interface SpiffeId {
  id: string;
  trustDomain: string;
  path: string;
}

const TRUST_DOMAIN = /^[a-z0-9._-]+$/;
const SEGMENT = /^[A-Za-z0-9._-]+$/;
const MAX_ID_BYTES = 2048;
const MAX_TRUST_DOMAIN = 255;

/** The parsed ID, or the reason it is not a SPIFFE ID. */
export function parseSpiffeId(value: string): { ok: true; value: SpiffeId } | { ok: false; reason: string } {
  if (typeof value !== 'string' || value.length === 0) return { ok: false, reason: 'empty' };
  if (Buffer.byteLength(value) > MAX_ID_BYTES) return { ok: false, reason: `longer than ${MAX_ID_BYTES} bytes` };
  if (!value.startsWith('spiffe://')) return { ok: false, reason: 'scheme is not "spiffe://" (lower case)' };
  const rest = value.slice('spiffe://'.length);
  if (/[?#]/.test(rest)) return { ok: false, reason: 'has a query or fragment' };
  const slash = rest.indexOf('/');
  const trustDomain = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);
  if (trustDomain.length === 0) return { ok: false, reason: 'trust domain is empty' };
  if (trustDomain.length > MAX_TRUST_DOMAIN)
    return { ok: false, reason: `trust domain longer than ${MAX_TRUST_DOMAIN} characters` };
  if (trustDomain.includes('@')) return { ok: false, reason: 'has user info' };
  if (trustDomain.includes(':')) return { ok: false, reason: 'has a port' };
  if (!TRUST_DOMAIN.test(trustDomain))
    return { ok: false, reason: 'trust domain has characters other than a-z 0-9 . - _' };
  if (path !== '') {
    const segments = path.slice(1).split('/');
    for (const s of segments) {
      if (s === '') return { ok: false, reason: 'path has an empty segment or a trailing slash' };
      if (s === '.' || s === '..') return { ok: false, reason: 'path has a "." or ".." segment' };
      if (!SEGMENT.test(s)) return { ok: false, reason: 'path has characters other than A-Z a-z 0-9 . - _' };
    }
  }
  return { ok: true, value: { id: value, trustDomain, path } };
}

/** The SPIFFE ID of a trust domain itself, as bundles are keyed. */
export const trustDomainId = (trustDomain: string) => `spiffe://${trustDomain}`;

/** `spiffe://td` -> `td` (also accepts a bare trust domain name). */
export const trustDomainOf = (key: string) => key.replace(/^spiffe:\/\//, '').replace(/\/.*$/, '');
