import { oauthError } from '../../errors.ts';
import type { OAuthClient } from '../clients/client.ts';
import type { OAuthDeps } from '../deps.ts';
import type { IssuerProfile } from '../issuers.ts';
import type { IssuerTokens } from '../tokens.ts';
import type { GrantHandler } from './endpoint.ts';

export interface TokenResponseBody {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

/** What a grant handler of the OAuth server is given: the server's configuration and the checked request. */
export interface OAuthGrantContext {
  deps: OAuthDeps;
  profile: IssuerProfile;
  tokens: IssuerTokens;
  /** The authenticated client (RFC 6749 §3.2.1). */
  client: OAuthClient;
  /** The thumbprint of the request's DPoP key, when it carried a proof (RFC 9449 §5). */
  jkt?: string;
}

export type OAuthGrantHandler = GrantHandler<OAuthGrantContext, TokenResponseBody>;

/** RFC 6749 §5.2: the grant (code, refresh token) is invalid, expired, revoked or another client's. */
export const invalidGrant = (description: string) => oauthError('invalid_grant', description);

export const tokenType = (jkt: string | undefined): 'Bearer' | 'DPoP' => (jkt ? 'DPoP' : 'Bearer');
