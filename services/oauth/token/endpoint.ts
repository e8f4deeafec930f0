import { authenticateClient, type AuthenticatedClient } from '../client-auth.ts';
import type { OAuthDeps } from '../deps.ts';
import { checkDPoP } from '../../dpop/check.ts';
import type { IssuerProfile } from '../issuers.ts';
import { IssuerTokens } from '../tokens.ts';
import { authorizationCodeGrant } from './authorization-code.ts';
import { clientCredentialsGrant } from './client-credentials.ts';
import type { OAuthGrantHandler, TokenResponseBody } from './context.ts';
import { GrantTable, type TokenForm } from './grant-table.ts';
import { refreshTokenGrant } from './refresh-token.ts';
import { oauthError } from '../../errors.ts';

export type { TokenResponseBody } from './context.ts';

export interface TokenRequest {
  body: TokenForm;
  authorization?: string;
  dpop?: string | string[];
  /** The token endpoint URL as the client addressed it (for DPoP htu). */
  url: string;
}

/** The OAuth server's grants (RFC 6749 §4.1.3, §6, §4.4). */
const OAUTH_GRANTS = new GrantTable<OAuthGrantHandler>([
  ['authorization_code', authorizationCodeGrant],
  ['refresh_token', refreshTokenGrant],
  ['client_credentials', clientCredentialsGrant],
]);

/**
 * The token endpoint of one issuer of the OAuth server (RFC 6749 §3.2, RFC 9449): the client is
 * authenticated and its DPoP proof checked, then its grant's handler answers.
 */
export class TokenEndpoint {
  readonly tokens: IssuerTokens;

  constructor(
    private readonly deps: OAuthDeps,
    readonly profile: IssuerProfile,
    private readonly grants = OAUTH_GRANTS,
  ) {
    this.tokens = new IssuerTokens(deps.keys, profile);
  }

  authenticate(request: Pick<TokenRequest, 'body' | 'authorization'>): Promise<AuthenticatedClient> {
    return authenticateClient(request, {
      clients: this.deps.clients,
      audiences: [this.profile.endpoint('token'), this.profile.issuer],
      nowMs: this.deps.clock.now(),
      useAssertionJti: (clientId, jti) => this.deps.useOnce('client-assertion', `${clientId}:${jti}`),
    });
  }

  async handle(request: TokenRequest): Promise<TokenResponseBody> {
    const grantType = this.grants.grantTypeOf(request.body);
    const { client } = await this.authenticate(request);
    const proof = await checkDPoP(request.dpop, { method: 'POST', url: request.url }, this.deps.dpopServer('as'));
    const grant = this.grants.handlerFor(grantType);
    if (!client.grant_types.includes(grantType))
      throw oauthError('unauthorized_client', `This client may not use the ${grantType} grant`);
    const ctx = { deps: this.deps, profile: this.profile, tokens: this.tokens, client, jkt: proof?.jkt };
    return grant(ctx, request.body);
  }
}
