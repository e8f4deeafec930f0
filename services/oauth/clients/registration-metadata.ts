import type { RegisteredMetadata } from '../../../machines/oauth-client.ts';
import { oauthError } from '../../errors.ts';
import { CLIENT_ASSERTION_ALGS } from '../client-auth.ts';
import { OAUTH_SCOPES } from '../scopes.ts';
import { isLoopbackHost } from '../../loopback.ts';

const SUPPORTED_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;
const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'];
const MAX_URIS = 20;
const MAX_TEXT = 2000;
/** An entry of a list of names (grant types, contacts): RFC 5321's longest address is 254 characters. */
const MAX_ITEM = 320;

const invalidMetadata = (description: string) => oauthError('invalid_client_metadata', description);
const invalidRedirect = (description: string) => oauthError('invalid_redirect_uri', description);

/**
 * RFC 7591 §2 with RFC 8252 §7.3 and RFC 9700 §4.1: a redirect URI is absolute, carries no fragment,
 * and is https, or plain http to a loopback host (a native app's or a tool's listener).
 */
function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_TEXT) return 'is not a string of at most 2000 characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (value.includes('#')) return 'has a fragment';
  if (url.username || url.password) return 'carries credentials';
  // Kept as registered and compared exactly (RFC 6749 §3.1.2.3), so only its one normal form is taken:
  // never a case, an encoding or a dot segment that another spelling of the same URI would miss.
  if (url.href !== value) return `is not in its normal form: register ${JSON.stringify(url.href)}`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'must be https, or http to a loopback host';
}

function uriList(body: Record<string, unknown>, name: string, required: boolean): string[] {
  const value = body[name];
  if (value === undefined) {
    if (required) throw invalidRedirect(`${name} is required for the authorization_code grant`);
    return [];
  }
  if (!Array.isArray(value) || value.length > MAX_URIS || (required && value.length === 0))
    throw invalidRedirect(`${name} must be an array of 1 to ${MAX_URIS} URIs`);
  for (const uri of value) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidRedirect(`${name}: ${JSON.stringify(String(uri).slice(0, 100))} ${problem}`);
  }
  return value as string[];
}

function text(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > MAX_TEXT)
    throw invalidMetadata(`${name} must be a string of at most ${MAX_TEXT} characters`);
  return value;
}

/**
 * Control characters, line and paragraph separators, and the bidirectional embedding, override and
 * isolate controls: characters that let a name shown on the consent page read as another (RFC 7591 §5,
 * RFC 6819 §4.2.2's client impersonation), or break a line of a log or a page.
 */
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Text shown to people (a client's name, its contacts): one Unicode normal form (NFC), nothing unshowable. */
function displayText(value: string, name: string): string {
  if (UNSHOWABLE.test(value)) throw invalidMetadata(`${name} contains control or bidirectional formatting characters`);
  return value.normalize('NFC');
}

const shownText = (body: Record<string, unknown>, name: string): string | undefined => {
  const value = text(body, name);
  return value === undefined ? undefined : displayText(value, name);
};

/**
 * An http(s) URL without userinfo, kept in its normal form (RFC 7591 §3.2.1 lets the server replace a
 * value; the answer shows the one kept); whether it may be fetched is the outbound guard's to say.
 */
function webUrl(body: Record<string, unknown>, name: string): string | undefined {
  const value = text(body, name);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw invalidMetadata(`${name} must be an absolute http(s) URL`);
  if (url.username || url.password) throw invalidMetadata(`${name} must not carry credentials`);
  return url.href;
}

function strings(body: Record<string, unknown>, name: string, fallback: string[]): string[] {
  const value = body[name];
  if (value === undefined) return fallback;
  if (
    !Array.isArray(value) ||
    value.some((v) => typeof v !== 'string' || v.length > MAX_ITEM) ||
    value.length > MAX_URIS
  )
    throw invalidMetadata(`${name} must be an array of at most ${MAX_URIS} strings of at most ${MAX_ITEM} characters`);
  return [...new Set(value as string[])];
}

/** RFC 7591 §2.1: `authorization_code` goes with response type `code`, and only those are ours. */
function grantsAndResponses(body: Record<string, unknown>) {
  const grant_types = strings(body, 'grant_types', ['authorization_code']);
  const unknownGrant = grant_types.find((g) => !SUPPORTED_GRANT_TYPES.includes(g));
  if (unknownGrant !== undefined) throw invalidMetadata(`grant_types: ${unknownGrant} is not supported`);
  const usesCode = grant_types.includes('authorization_code');
  const response_types = strings(body, 'response_types', usesCode ? ['code'] : []);
  if (response_types.some((r) => r !== 'code')) throw invalidMetadata('response_types: only code is supported');
  if (usesCode !== response_types.includes('code'))
    throw invalidMetadata('grant_types and response_types disagree: authorization_code goes with code (RFC 7591 §2.1)');
  return { grant_types, response_types };
}

function authentication(body: Record<string, unknown>, grantTypes: string[]) {
  const method = text(body, 'token_endpoint_auth_method') ?? 'client_secret_basic';
  if (!(SUPPORTED_AUTH_METHODS as readonly string[]).includes(method))
    throw invalidMetadata(`token_endpoint_auth_method must be one of ${SUPPORTED_AUTH_METHODS.join(', ')}`);
  const signingAlg = text(body, 'token_endpoint_auth_signing_alg');
  if (signingAlg !== undefined && !CLIENT_ASSERTION_ALGS.includes(signingAlg))
    throw invalidMetadata(`token_endpoint_auth_signing_alg must be one of ${CLIENT_ASSERTION_ALGS.join(', ')}`);
  if (method === 'none' && grantTypes.includes('client_credentials'))
    throw invalidMetadata(
      'client_credentials needs client authentication; token_endpoint_auth_method none cannot use it',
    );
  if (body.jwks !== undefined && body.jwks_uri !== undefined)
    throw invalidMetadata('Give jwks or jwks_uri, not both (RFC 7591 §2)');
  const jwks = body.jwks === undefined ? undefined : publicKeySet(body.jwks);
  const jwks_uri = webUrl(body, 'jwks_uri');
  if (method === 'private_key_jwt' && !jwks && !jwks_uri)
    throw invalidMetadata('private_key_jwt needs the client keys: jwks or jwks_uri');
  return {
    token_endpoint_auth_method: method as RegisteredMetadata['token_endpoint_auth_method'],
    ...(signingAlg !== undefined ? { token_endpoint_auth_signing_alg: signingAlg } : {}),
    ...(jwks ? { jwks } : {}),
    ...(jwks_uri !== undefined ? { jwks_uri } : {}),
  };
}

function publicKeySet(value: unknown): { keys: Record<string, unknown>[] } {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > 10)
    throw invalidMetadata('jwks must be a JWK Set with 1 to 10 keys');
  for (const key of keys) {
    if (!key || typeof key !== 'object' || typeof (key as { kty?: unknown }).kty !== 'string')
      throw invalidMetadata('jwks: every key needs a kty');
    if (['d', 'p', 'q', 'k'].some((member) => Object.hasOwn(key as object, member)))
      throw invalidMetadata('jwks must hold public keys only');
  }
  return { keys: keys as Record<string, unknown>[] };
}

function scopeOf(body: Record<string, unknown>): string {
  const scope = text(body, 'scope');
  if (scope === undefined) return OAUTH_SCOPES.join(' ');
  const asked = scope.split(' ').filter(Boolean);
  const unknown = asked.find((s) => !OAUTH_SCOPES.includes(s));
  if (unknown !== undefined) throw invalidMetadata(`scope: ${unknown} is not a scope of this server`);
  return [...new Set(asked)].join(' ');
}

/**
 * The metadata of a registration or an update request (RFC 7591 §2, RFC 7592 §2.2), checked and with
 * the defaults filled in. Members we do not know are ignored (RFC 7591 §3.1). The pairwise sector is
 * resolved afterwards, since it may need a fetch.
 */
export function checkClientMetadata(body: unknown): RegisteredMetadata {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalidMetadata('The registration request must be a JSON object of client metadata');
  const b = body as Record<string, unknown>;
  const { grant_types, response_types } = grantsAndResponses(b);
  const redirect_uris = uriList(b, 'redirect_uris', grant_types.includes('authorization_code'));
  const subjectType = text(b, 'subject_type') ?? 'public';
  if (subjectType !== 'public' && subjectType !== 'pairwise')
    throw invalidMetadata('subject_type must be public or pairwise');
  const par = b.require_pushed_authorization_requests ?? false;
  if (typeof par !== 'boolean') throw invalidMetadata('require_pushed_authorization_requests must be a boolean');
  const optional = (name: string, value: string | string[] | undefined) =>
    value === undefined ? {} : { [name]: value };
  return {
    client_name: shownText(b, 'client_name') ?? 'Registered client',
    redirect_uris,
    post_logout_redirect_uris: uriList(b, 'post_logout_redirect_uris', false),
    grant_types,
    response_types,
    ...authentication(b, grant_types),
    scope: scopeOf(b),
    subject_type: subjectType,
    ...optional('sector_identifier_uri', webUrl(b, 'sector_identifier_uri')),
    require_pushed_authorization_requests: par,
    ...optional('client_uri', webUrl(b, 'client_uri')),
    ...optional('logo_uri', webUrl(b, 'logo_uri')),
    ...optional('tos_uri', webUrl(b, 'tos_uri')),
    ...optional('policy_uri', webUrl(b, 'policy_uri')),
    ...optional(
      'contacts',
      b.contacts === undefined ? undefined : strings(b, 'contacts', []).map((c) => displayText(c, 'contacts')),
    ),
    ...optional('software_id', shownText(b, 'software_id')),
    ...optional('software_version', shownText(b, 'software_version')),
  };
}
