import type { JWK } from 'jose';
import type { RegisteredMetadata } from '../../../machines/oauth-client.ts';
import type { ClientAuthMethod, DemoClient } from '../demo-clients.ts';

/** Where a client comes from: the published demo set, the registration endpoint, or its metadata document. */
export type ClientKind = 'demo' | 'registered' | 'metadata_document';

/**
 * A client as the authorization and token endpoints see it, whatever its kind: a demo client's
 * members, with its secret known only by its hash.
 */
export interface OAuthClient extends Omit<DemoClient, 'client_secret' | 'private_jwks'> {
  kind: ClientKind;
  /** SHA-256 of the client secret (base64url); null for a client without one. */
  secretHash: string | null;
  /** Where the client's keys are fetched from (through the outbound guard) when it gave no `jwks`. */
  jwks_uri?: string;
  subject_type: 'public' | 'pairwise';
  /** The sector pairwise subjects are derived for (OIDC Core §8.1). */
  sector?: string;
  require_pushed_authorization_requests: boolean;
}

/** The client type that goes with an authentication method (RFC 6749 §2.1). */
const clientTypeOf = (method: ClientAuthMethod): 'confidential' | 'public' =>
  method === 'none' ? 'public' : 'confidential';

/** Whether an authentication method proves the client with a secret we issue (RFC 7591 §3.2.1). */
export const usesSecret = (method: ClientAuthMethod) =>
  method === 'client_secret_basic' || method === 'client_secret_post';

/** The client that registration metadata describes (RFC 7591 §2): a registered one, or a metadata document's. */
export function clientFromMetadata(
  kind: Exclude<ClientKind, 'demo'>,
  clientId: string,
  m: RegisteredMetadata,
  secretHash: string | null,
): OAuthClient {
  return {
    kind,
    client_id: clientId,
    client_name: m.client_name,
    client_type: clientTypeOf(m.token_endpoint_auth_method),
    secretHash,
    redirect_uris: m.redirect_uris,
    post_logout_redirect_uris: m.post_logout_redirect_uris,
    token_endpoint_auth_method: m.token_endpoint_auth_method,
    ...(m.token_endpoint_auth_signing_alg
      ? { token_endpoint_auth_signing_alg: m.token_endpoint_auth_signing_alg }
      : {}),
    grant_types: m.grant_types,
    scope: m.scope,
    ...(m.jwks ? { jwks: m.jwks as { keys: JWK[] } } : {}),
    ...(m.jwks_uri ? { jwks_uri: m.jwks_uri } : {}),
    subject_type: m.subject_type,
    ...(m.sector ? { sector: m.sector } : {}),
    require_pushed_authorization_requests: m.require_pushed_authorization_requests,
  };
}
