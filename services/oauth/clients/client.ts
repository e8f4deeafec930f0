import type { JWK } from 'jose';
import type { ClientAuthMethod } from '../demo-clients.ts';

/** Where a client comes from: the published demo set, the registration endpoint, or its metadata document. */
export type ClientKind = 'demo' | 'registered' | 'metadata_document';

/**
 * A client as the authorization and token endpoints see it, whatever its kind. Its secret is known
 * only by its hash.
 */
export interface OAuthClient {
  kind: ClientKind;
  client_id: string;
  client_name: string;
  client_type: 'confidential' | 'public';
  /** SHA-256 of the client secret (base64url); null for a client without one. */
  secretHash: string | null;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  token_endpoint_auth_signing_alg?: string;
  grant_types: string[];
  scope: string;
  jwks?: { keys: JWK[] };
  /** Where the client's keys are fetched from (through the outbound guard) when it gave no `jwks`. */
  jwks_uri?: string;
  subject_type: 'public' | 'pairwise';
  /** The sector pairwise subjects are derived for (OIDC Core §8.1). */
  sector?: string;
  require_pushed_authorization_requests: boolean;
}

/** The client type that goes with an authentication method (RFC 6749 §2.1). */
export const clientTypeOf = (method: ClientAuthMethod): 'confidential' | 'public' =>
  method === 'none' ? 'public' : 'confidential';
