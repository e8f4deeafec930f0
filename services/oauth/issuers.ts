/**
 * The two authorization servers of the origin (decisions section 3): the OpenID Provider at `{base}`
 * (paths under /oidc) and the OAuth 2.0 authorization server at `{base}/oauth2`. They share code and
 * differ in these settings.
 */
export interface IssuerProfile {
  id: 'op' | 'as';
  issuer: string;
  /** Path prefix of the endpoints, e.g. `/oidc`. */
  prefix: string;
  /** Key set of access tokens (ES256) and, for the OP, ID tokens (RS256). */
  keySet: string;
  openid: boolean;
  /** `aud` of the access tokens it mints (RFC 9068 section 2.2). */
  accessTokenAudience: string;
  /** RFC 8707: the resources a `resource` parameter may name; a token for one has it as `aud`. */
  resources: string[];
  endpoint(
    name:
      | 'authorize'
      | 'token'
      | 'introspect'
      | 'revoke'
      | 'jwks'
      | 'userinfo'
      | 'logout'
      | 'resource'
      | 'interaction'
      | 'par',
  ): string;
}

export function issuerProfiles(baseUrl: string): { op: IssuerProfile; as: IssuerProfile } {
  const make = (
    id: 'op' | 'as',
    issuer: string,
    prefix: string,
    keySet: string,
    openid: boolean,
    aud: string,
    resources: string[],
  ): IssuerProfile => ({
    id,
    issuer,
    prefix,
    keySet,
    openid,
    accessTokenAudience: aud,
    resources,
    endpoint: (name) => `${baseUrl}${prefix}/${name}`,
  });
  return {
    op: make('op', baseUrl, '/oidc', 'oidc', true, `${baseUrl}/oidc/userinfo`, [`${baseUrl}/oidc/userinfo`]),
    as: make('as', `${baseUrl}/oauth2`, '/oauth2', 'oauth2', false, `${baseUrl}/oauth2/resource`, [
      `${baseUrl}/oauth2/resource`,
      mcpUserResource(baseUrl),
    ]),
  };
}

/** The protected MCP endpoint (docs/mcp.md): its URL is its resource identifier (RFC 8707, RFC 9728). */
const mcpUserResource = (baseUrl: string) => `${baseUrl}/mcp/user`;

/** RFC 9126 §2.2: how long a pushed request's request_uri lives. */
export const PAR_TTL_S = 60;

export const ACCESS_TOKEN_TTL_S = 3600;
export const REFRESH_TOKEN_TTL_MS = 7 * 24 * 3600 * 1000;
export const CODE_TTL_MS = 60_000;
export const INTERACTION_TTL_MS = 600_000;
