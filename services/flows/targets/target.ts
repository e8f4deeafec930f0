import { invalidRequest } from '../../errors.ts';

/** How a targeted run authenticates at the target's token endpoint (RFC 6749 §2.3.1, OpenID Connect Core §9). */
type TargetAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/**
 * An authorization server of the user's own that a flow runs against (`{"target": {...}}`). The
 * client secret lives in memory for the run's life only; the log and the capture hold it redacted.
 */
export interface Target {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scope?: string;
  authMethod: TargetAuthMethod;
}

const METHODS: readonly TargetAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'none'];
const text = (value: unknown, name: string, max: number): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > max)
    throw invalidRequest(`target.${name} must be a string of 1 to ${max} characters`);
  return value;
};

/** The `target` option, checked: an absolute http(s) issuer without query or fragment, a client id, the rest optional. */
function targetOf(option: unknown): Target | undefined {
  if (option === undefined) return undefined;
  if (!option || typeof option !== 'object' || Array.isArray(option)) throw invalidRequest('target must be an object');
  const o = option as Record<string, unknown>;
  const issuer = text(o.issuer, 'issuer', 500);
  const clientId = text(o.client_id, 'client_id', 200);
  if (!issuer || !clientId) throw invalidRequest('target.issuer and target.client_id are required');
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw invalidRequest('target.issuer must be an absolute URL');
  }
  // RFC 8414 §2: the issuer is an https URL with no query or fragment (the outbound guard decides the rest).
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash)
    throw invalidRequest('target.issuer must be an http(s) URL without query or fragment');
  const clientSecret = text(o.client_secret, 'client_secret', 500);
  const method = (text(o.token_endpoint_auth_method, 'token_endpoint_auth_method', 40) ??
    (clientSecret ? 'client_secret_basic' : 'none')) as TargetAuthMethod;
  if (!METHODS.includes(method))
    throw invalidRequest(`target.token_endpoint_auth_method must be one of ${METHODS.join(', ')}`);
  if (method !== 'none' && !clientSecret) throw invalidRequest(`target.client_secret is needed for ${method}`);
  return {
    issuer,
    clientId,
    ...(clientSecret ? { clientSecret } : {}),
    ...(o.scope !== undefined ? { scope: text(o.scope, 'scope', 500) } : {}),
    authMethod: method,
  };
}

/**
 * A SCIM service provider of the user's own that `scim/check-server` checks (`{"target": {base_url,
 * token}}`): its base URL (`.../scim/v2`) and a bearer token it takes. The token lives in memory for the
 * run's life only; the log and the capture hold it redacted.
 */
export interface ScimTarget {
  baseUrl: string;
  token: string;
}

/**
 * An SP of the user's own that `saml/attack-lab` attacks (`{"target": {"acs_url", "entity_id", ...}}`):
 * its ACS URL, entity ID (the audience), optional HTTP-Redirect SingleLogoutService for the DEFLATE bomb,
 * and whether its metadata asks for signed assertions. No secret: the lab signs as our IdP.
 */
export interface SamlTarget {
  acsUrl: string;
  entityId: string;
  sloUrl?: string;
  wantAssertionsSigned: boolean;
  /** The SP's metadata URL: fetched through the outbound guard, it names the rest. */
  metadataUrl?: string;
  /** For `saml/web-sso`: an IdP of the user's own, by its metadata URL (our SP signs in there). */
  idpMetadataUrl?: string;
}

const httpUrl = (value: string | undefined, name: string): string | undefined => {
  if (value === undefined) return undefined;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw invalidRequest(`target.${name} must be an http(s) URL`);
  return value;
};

/** The `target` option of the SAML attack lab, checked. */
function samlTargetOf(option: unknown): SamlTarget | undefined {
  if (option === undefined) return undefined;
  if (!option || typeof option !== 'object' || Array.isArray(option)) throw invalidRequest('target must be an object');
  const o = option as Record<string, unknown>;
  const idpMetadataUrl = httpUrl(text(o.idp_metadata_url, 'idp_metadata_url', 500), 'idp_metadata_url');
  // An IdP of the user's own (saml/web-sso): no SP fields; the run is admitted by the metadata URL.
  if (idpMetadataUrl) return { acsUrl: idpMetadataUrl, entityId: '', wantAssertionsSigned: true, idpMetadataUrl };
  const metadataUrl = httpUrl(text(o.metadata_url, 'metadata_url', 500), 'metadata_url');
  // Until its metadata is read, a target given by metadata_url is admitted by that URL.
  const acsUrl = httpUrl(text(o.acs_url, 'acs_url', 500), 'acs_url') ?? metadataUrl;
  const entityId = text(o.entity_id, 'entity_id', 500) ?? '';
  if (!metadataUrl && (!acsUrl || !entityId))
    throw invalidRequest('target needs metadata_url, or acs_url and entity_id');
  const sloUrl = httpUrl(text(o.slo_url, 'slo_url', 500), 'slo_url');
  if (o.want_assertions_signed !== undefined && typeof o.want_assertions_signed !== 'boolean')
    throw invalidRequest('target.want_assertions_signed must be a boolean');
  return {
    acsUrl: acsUrl!,
    entityId,
    ...(sloUrl ? { sloUrl } : {}),
    ...(metadataUrl ? { metadataUrl } : {}),
    wantAssertionsSigned: o.want_assertions_signed !== false,
  };
}

/** The `target` option of a SCIM flow, checked: an absolute http(s) base URL without query or fragment, and a token. */
function scimTargetOf(option: unknown): ScimTarget | undefined {
  if (option === undefined) return undefined;
  if (!option || typeof option !== 'object' || Array.isArray(option)) throw invalidRequest('target must be an object');
  const o = option as Record<string, unknown>;
  const baseUrl = text(o.base_url, 'base_url', 500);
  const token = text(o.token, 'token', 4_000);
  if (!baseUrl || !token) throw invalidRequest('target.base_url and target.token are required');
  if (!URL.canParse(baseUrl)) throw invalidRequest('target.base_url must be an absolute URL');
  const url = new URL(baseUrl);
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash)
    throw invalidRequest('target.base_url must be an http(s) URL without query or fragment');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), token };
}

export type AnyTarget = Target | ScimTarget | SamlTarget;

/** The `target` option of a run, read by its protocol: a SCIM service provider, a SAML SP, else an authorization server. */
export const targetFor = (protocol: string, option: unknown): AnyTarget | undefined =>
  protocol === 'scim' ? scimTargetOf(option) : protocol === 'saml' ? samlTargetOf(option) : targetOf(option);

/** The URL whose origin the outbound guard admits before a targeted run starts. */
export const targetOrigin = (target: AnyTarget): string =>
  'baseUrl' in target ? target.baseUrl : 'acsUrl' in target ? target.acsUrl : target.issuer;

/** Where a runner finds its target (RunContext's `target`, `scimTarget` or `samlTarget`). */
export const targetContext = (target: AnyTarget) =>
  'baseUrl' in target ? { scimTarget: target } : 'acsUrl' in target ? { samlTarget: target } : { target };
