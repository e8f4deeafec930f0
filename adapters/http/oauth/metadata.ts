import { CLIENT_ASSERTION_ALGS } from '../../../services/oauth/client-auth.ts';
import { DPOP_ALGS } from '../../../services/dpop/proof.ts';
import type { IssuerProfile } from '../../../services/oauth/issuers.ts';

/** RFC 8414 metadata of one issuer; the OP's also carries the OpenID Connect Discovery members. */
export function authorizationServerMetadata(
  profile: IssuerProfile,
  /** RFC 7591's endpoint, with DYNAMIC_CLIENTS=true (which also reads client ID metadata documents). */
  registrationEndpoint?: string,
): Record<string, unknown> {
  const e = profile.endpoint;
  const common = {
    issuer: profile.issuer,
    authorization_endpoint: e('authorize'),
    token_endpoint: e('token'),
    // RFC 7591 §3: one registration endpoint serves both issuers (an extension, decisions §11).
    ...(registrationEndpoint ? { registration_endpoint: registrationEndpoint } : {}),
    // RFC 9126 §5: per client, `require_pushed_authorization_requests` may demand it.
    pushed_authorization_request_endpoint: e('par'),
    require_pushed_authorization_requests: false,
    // draft-ietf-oauth-client-id-metadata-document: an https client_id is the URL of its metadata.
    ...(registrationEndpoint ? { client_id_metadata_document_supported: true } : {}),
    jwks_uri: e('jwks'),
    introspection_endpoint: e('introspect'),
    revocation_endpoint: e('revoke'),
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'form_post'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
    token_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGS,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    introspection_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGS,
    revocation_endpoint_auth_methods_supported: [
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
      'none',
    ],
    revocation_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGS,
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    authorization_response_iss_parameter_supported: true,
    scopes_supported: profile.openid
      ? ['openid', 'profile', 'email', 'phone', 'offline_access']
      : ['api:read', 'api:write', 'mcp:read', 'mcp:write', 'openid', 'profile', 'email', 'phone', 'offline_access'],
    service_documentation: `${new URL(e('token')).origin}/docs/api`,
  };
  if (!profile.openid) return common;
  return {
    ...common,
    userinfo_endpoint: e('userinfo'),
    end_session_endpoint: e('logout'),
    subject_types_supported: ['public', 'pairwise'],
    id_token_signing_alg_values_supported: ['RS256'],
    userinfo_signing_alg_values_supported: ['none'],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'at_hash',
      'name',
      'given_name',
      'family_name',
      'preferred_username',
      'email',
      'email_verified',
      'phone_number',
      'phone_number_verified',
      'birthdate',
      'zoneinfo',
      'locale',
      'updated_at',
      'website',
    ],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    prompt_values_supported: ['none', 'login', 'consent'],
  };
}

/** RFC 9728 documents for the origin, UserInfo and the demo resource. */
export function protectedResourceMetadata(base: string, profiles: { op: IssuerProfile; as: IssuerProfile }) {
  const common = {
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    resource_documentation: `${base}/docs/api`,
  };
  return {
    origin: {
      resource: base,
      authorization_servers: [profiles.op.issuer, profiles.as.issuer, `${base}/agentauth`],
      ...common,
      scopes_supported: ['openid', 'profile', 'email', 'api:read', 'api:write', 'agent:read', 'agent:write'],
    },
    userinfo: {
      resource: `${base}/oidc/userinfo`,
      authorization_servers: [profiles.op.issuer],
      ...common,
      bearer_methods_supported: ['header', 'body'],
      scopes_supported: ['openid', 'profile', 'email', 'phone'],
    },
    resource: {
      resource: `${base}/oauth2/resource`,
      authorization_servers: [profiles.as.issuer],
      ...common,
      scopes_supported: ['api:read', 'api:write'],
    },
  };
}
