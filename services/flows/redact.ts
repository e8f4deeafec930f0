import { isJsonObject } from '../untrusted/json.ts';
import { accessTokenFromHeader } from '../oauth/authorization-header.ts';
import { keyedFingerprint } from '../crypto/fingerprint.ts';

/**
 * What a run keeps in the event log: every secret replaced by a fingerprint, decided on the value as
 * well as on its name. Values: JWTs (JWS, JWE, SD-JWT) wherever they stand, and the private members
 * of any JWK. Names: credentials and bearer material only (`client_secret`, `*_token`, `code`, an
 * offer's `offer_id`, `pre_authorized_code`, `tx_code_value` and `issuer_state`, capabilities such as a result's
 * `transaction_id` and `response_code`, ...),
 * never public metadata whose names merely mention them (`token_endpoint`, `authorization_endpoint`,
 * `id_token_signing_alg_values_supported`, `token_type`).
 */
const SECRET_NAME =
  /(^|_)(token|secret|password|assertion|verifier)$|^(code|device_code|user_code|pre[-_]authorized_code|tx_code(_value)?|issuer_state|offer_id|response_code|transaction_id|notification_id|authorization|proxy-authorization|cookie|set-cookie|dpop|svid|private_jwks?)$/i;

/**
 * Path segments that are capabilities or that name one: a presentation result is read by its
 * transaction id, and an offer id is shown to nobody but the offer's creator.
 */
const CAPABILITY_PATH = /(\/oid4vp\/result\/|\/oid4vci\/credential-offer\/|\/oid4vci\/offers\/)([^/?#]+)/;

/** RFC 7517/7518 members that hold private or symmetric key material. */
const PRIVATE_JWK_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv']);

/** How a secret is shown in its place: a keyed fingerprint, so no dictionary finds "hunter2" behind it. */
type Fingerprint = (value: string) => string;

/** The redaction of one deployment: every fingerprint keyed by its server secret (`fingerprint`). */
export function redactor(fingerprintKey: Uint8Array): (value: unknown) => unknown {
  const fingerprint: Fingerprint = (value) => `[redacted hmac:${keyedFingerprint(fingerprintKey, value)}]`;
  return (value) => redactWith(fingerprint, value);
}

/** An absolute URL with a path, query or fragment (any scheme: `openid-credential-offer://` too). */
const URL_WITH_PARTS = /^[a-z][a-z0-9+.-]*:\/\/\S*[?#/]/i;

const isSecretName = (name: string) => SECRET_NAME.test(name);

/** A base64url segment that decodes to a JSON object with `alg` (or `enc`): a JOSE header. */
function isJoseHeader(segment: string): boolean {
  if (!/^eyJ[A-Za-z0-9_-]+$/.test(segment)) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return isJsonObject(header) && (typeof header.alg === 'string' || typeof header.enc === 'string');
  } catch {
    return false;
  }
}

/** A compact JWS or JWE, an SD-JWT, or either behind an auth scheme (`Bearer`, `DPoP`). */
export function looksLikeJwt(value: string): boolean {
  const token = (accessTokenFromHeader(value)?.token ?? value).split('~')[0];
  const parts = token.split('.');
  return (parts.length === 3 || parts.length === 5) && isJoseHeader(parts[0]);
}

const isJwk = (v: Record<string, unknown>) => typeof v.kty === 'string';

/** A deep copy with every secret replaced by a fingerprint. */
function redactWith(fingerprint: Fingerprint, value: unknown, key = ''): unknown {
  const redact = (v: unknown, k: string) => redactWith(fingerprint, v, k);
  if (key === 'tokens' || key === 'payload' || key === 'header') return value; // decoded claims, not bearer material
  if (typeof value === 'string') {
    if (isSecretName(key) || looksLikeJwt(value)) return fingerprint(value);
    if (URL_WITH_PARTS.test(value)) return redactUrl(fingerprint, value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, key));
  if (isJsonObject(value)) {
    const jwk = isJwk(value);
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        jwk && PRIVATE_JWK_MEMBERS.has(k) && typeof v === 'string' ? fingerprint(v) : redact(v, k),
      ]),
    );
  }
  return value;
}

/** One URL parameter by the same rules; a JSON value (an offer by value, `credential_offer={…}`) member by member. */
function redactParameter(fingerprint: Fingerprint, params: URLSearchParams, name: string, value: string): void {
  if (isSecretName(name) || looksLikeJwt(value)) return params.set(name, fingerprint(value));
  if (URL_WITH_PARTS.test(value)) {
    const redacted = redactUrl(fingerprint, value);
    if (redacted !== value) params.set(name, redacted);
    return;
  }
  if (!value.startsWith('{')) return;
  try {
    params.set(name, JSON.stringify(redactWith(fingerprint, JSON.parse(value))));
  } catch {
    // not JSON after all: an ordinary value
  }
}

/** Query and fragment parameters of a URL (of any scheme, `openid-credential-offer://` too), redacted by the same rules. */
function redactUrl(fingerprint: Fingerprint, url: string): string {
  try {
    const u = new URL(url);
    const before = u.href;
    for (const [k, v] of [...u.searchParams]) redactParameter(fingerprint, u.searchParams, k, v);
    // Only a fragment of parameters (`#a=b&c=d`) is rewritten; a plain anchor (`#rsa-sha256`) stays as it is.
    if (u.hash.includes('=')) {
      const fragment = new URLSearchParams(u.hash.slice(1));
      for (const [k, v] of [...fragment]) redactParameter(fingerprint, fragment, k, v);
      u.hash = fragment.toString();
    }
    // Nothing redacted: the URL as given, byte for byte (a signed query, such as SAML's, must not be re-encoded).
    const href = u.href === before ? url : u.href;
    return href.replace(
      CAPABILITY_PATH,
      (_all, prefix: string, capability: string) => `${prefix}${fingerprint(capability)}`,
    );
  } catch {
    return url;
  }
}
