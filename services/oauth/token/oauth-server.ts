import { checkDPoP } from '../../dpop/check.ts';
import { authenticateClient, type AuthenticatedClient } from '../client-auth.ts';
import type { OAuthClient } from '../clients/client.ts';
import type { OAuthDeps } from '../deps.ts';
import type { IssuerProfile } from '../issuers.ts';
import { IssuerTokens } from '../tokens.ts';
import { authorizationCodeGrant } from './authorization-code.ts';
import { clientCredentialsGrant } from './client-credentials.ts';
import type { OAuthGrantContext, OAuthGrantHandler, TokenResponseBody } from './context.ts';
import { TokenEndpoint } from './endpoint.ts';
import { GrantTable, type TokenForm } from './grant-table.ts';
import { refreshTokenGrant } from './refresh-token.ts';

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
 * The token endpoint of one issuer of the OAuth server (`{base}/oauth2` or the OpenID Provider):
 * the core's TokenEndpoint configured with client_secret and private_key_jwt authentication, the
 * demo clients' allowed grants, and the issuer's own keys and token format.
 */
export class OAuthTokenServer {
  readonly tokens: IssuerTokens;
  private readonly endpoint: TokenEndpoint<TokenRequest, OAuthClient, OAuthGrantContext, TokenResponseBody>;

  constructor(
    private readonly deps: OAuthDeps,
    readonly profile: IssuerProfile,
  ) {
    this.tokens = new IssuerTokens(deps.keys, profile);
    this.endpoint = new TokenEndpoint<TokenRequest, OAuthClient, OAuthGrantContext, TokenResponseBody>({
      grants: OAUTH_GRANTS,
      authenticateClient: async (request) => {
        const { client } = await this.authenticate(request);
        // A registered client at the token endpoint is in use: its 24 hours start again.
        await this.deps.clients.noteUse(client);
        return client;
      },
      checkProof: (request) =>
        checkDPoP(request.dpop, { method: 'POST', url: request.url }, this.deps.dpopServer('as')),
      mayUseGrant: (client, grantType) => client.grant_types.includes(grantType),
      context: ({ client, proof }) => ({
        deps: this.deps,
        profile: this.profile,
        tokens: this.tokens,
        client,
        jkt: proof?.jkt,
      }),
    });
  }

  /**
   * RFC 6749 §2.3: also used by introspection, revocation and PAR. A client assertion's `aud` is the
   * issuer or the token endpoint; at PAR also the PAR endpoint (RFC 9126 §2: the server MUST accept all three).
   */
  authenticate(
    request: Pick<TokenRequest, 'body' | 'authorization'>,
    at: 'token' | 'par' = 'token',
  ): Promise<AuthenticatedClient> {
    return authenticateClient(request, {
      clients: this.deps.clients,
      keysOf: this.deps.clientKeys,
      audiences: [
        this.profile.endpoint('token'),
        this.profile.issuer,
        ...(at === 'par' ? [this.profile.endpoint('par')] : []),
      ],
      nowMs: this.deps.clock.now(),
      useAssertionJti: (clientId, jti) => this.deps.useOnce('client-assertion', `${clientId}:${jti}`),
    });
  }

  handle(request: TokenRequest): Promise<TokenResponseBody> {
    return this.endpoint.handle(request.body, request);
  }
}
