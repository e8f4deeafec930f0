import type { JsonObject } from '../../untrusted/json.ts';
import type { JWK } from 'jose';
import { oauthError } from '../../errors.ts';
import { UpstreamError } from '../../outbound.ts';
import { expectOk, type IssuerWire } from './wire.ts';

/** What the wallet learned about an issuer, after the trust rules passed. */
export interface IssuerView {
  credentialIssuer: string;
  metadata: JsonObject;
  /** The metadata's `credential_endpoint`, an http(s) URL (none for a resource reached by FAPI discovery). */
  credentialEndpoint?: string;
  authorizationServer: string;
  asMetadata: JsonObject;
}

/** `https://host/path` + `/.well-known/<name>` inserted before the path (RFC 8414 §3, OpenID4VCI 1.0 §12.2.2). */
export const wellKnown = (identifier: string, name: string) => {
  const u = new URL(identifier);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return `${u.origin}/.well-known/${name}${path}`;
};

const isHttpUrl = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  try {
    return ['https:', 'http:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** The issuer metadata trust rule (spec wallet behaviour 9): its `credential_issuer` is the one the offer named. */
function checkIssuerIdentity(metadata: JsonObject, expected: string): void {
  if (metadata.credential_issuer !== expected)
    throw oauthError('issuer_mismatch', `The issuer metadata names another credential_issuer than ${expected}`);
}

/** The discovery rule (spec wallet behaviour 4): the document's `issuer` is the one its URL implies; else nothing more is fetched. */
function checkDiscoveredIssuer(metadata: JsonObject, expected: string): void {
  if (metadata.issuer !== expected)
    throw oauthError(
      'discovery_issuer_mismatch',
      `The discovery document names another issuer than ${expected}; no further call was made`,
    );
}

/**
 * The issuer's `credential_configurations_supported` as a map of the entries that are objects; the
 * metadata comes from the network, so anything else (an array, nulls, `__proto__`) is left out.
 */
export function configurationsOf(metadata: JsonObject | undefined): Map<string, JsonObject> {
  const raw: unknown = metadata?.credential_configurations_supported;
  const out = new Map<string, JsonObject>();
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [id, value] of Object.entries(raw))
    if (value && typeof value === 'object' && !Array.isArray(value)) out.set(id, value as JsonObject);
  return out;
}

/** An issuer identifier must be an http(s) URL without query or fragment (OpenID4VCI 1.0 §12.2.1); else 400. */
export function checkIssuerIdentifier(value: unknown, what = 'credential_issuer'): string {
  if (!isHttpUrl(value)) throw oauthError('invalid_request', `${what} is not an http(s) URL`);
  const u = new URL(value);
  if (u.search || u.hash || u.username || u.password)
    throw oauthError('invalid_request', `${what} has a query, fragment or userinfo`);
  return value;
}

/** Credential issuer metadata, then the metadata of its authorization server, each checked before use. */
export async function discoverIssuer(
  wire: IssuerWire,
  credentialIssuer: string,
  authorizationServer?: string,
): Promise<IssuerView> {
  checkIssuerIdentifier(credentialIssuer);
  const metadata = expectOk(
    await wire.call('metadata', wellKnown(credentialIssuer, 'openid-credential-issuer')),
    'The credential issuer metadata',
  ).json;
  checkIssuerIdentity(metadata, credentialIssuer);
  const credentialEndpoint = metadata.credential_endpoint;
  if (!isHttpUrl(credentialEndpoint)) throw new UpstreamError('The issuer metadata has no usable credential_endpoint');
  const servers = Array.isArray(metadata.authorization_servers) ? metadata.authorization_servers.filter(isHttpUrl) : [];
  const asIssuer =
    authorizationServer && (servers.length === 0 || servers.includes(authorizationServer))
      ? authorizationServer
      : (servers[0] ?? credentialIssuer);
  const asMetadata = expectOk(
    await wire.call('as_metadata', wellKnown(asIssuer, 'oauth-authorization-server')),
    'The authorization server metadata',
  ).json;
  checkDiscoveredIssuer(asMetadata, asIssuer);
  return { credentialIssuer, metadata, credentialEndpoint, authorizationServer: asIssuer, asMetadata };
}

/**
 * FAPI 2.0 discovery from a full `…/.well-known/openid-configuration` URL (spec wallet behaviour 4):
 * the implied issuer is the URL without that suffix; the `oauth-authorization-server` path is never fetched.
 */
export async function discoverOpenIdProvider(
  wire: IssuerWire,
  discoveryUrl: string,
): Promise<{ issuer: string; metadata: JsonObject }> {
  const suffix = '/.well-known/openid-configuration';
  if (!isHttpUrl(discoveryUrl) || !new URL(discoveryUrl).pathname.endsWith(suffix))
    throw oauthError('invalid_request', `discovery_url must be a full …${suffix} URL`);
  const u = new URL(discoveryUrl);
  const issuer = `${u.origin}${u.pathname.slice(0, -suffix.length)}`;
  const metadata = expectOk(await wire.call('as_metadata', discoveryUrl), 'The OpenID configuration').json;
  checkDiscoveredIssuer(metadata, issuer);
  return { issuer, metadata };
}

/** The issuer keys for JWT and SD-JWT credentials (spec wallet behaviour 11): `jwks_uri` of issuer or AS metadata, never /.well-known/jwt-vc-issuer. */
export async function issuerKeys(wire: IssuerWire, view: IssuerView): Promise<{ keys: JWK[] }> {
  const uri = [view.metadata.jwks_uri, view.asMetadata.jwks_uri].find(isHttpUrl);
  if (!uri) return { keys: [] };
  const jwks = expectOk(await wire.call('jwks', uri), 'The issuer JWKS').json;
  return { keys: Array.isArray(jwks.keys) ? (jwks.keys as JWK[]).filter((k) => k && typeof k === 'object') : [] };
}
