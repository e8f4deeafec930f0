import { verifierMatches } from './pkce.ts';
import { OAuthError } from '../errors.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import { authenticateClient, type AuthenticatedClient } from './client-auth.ts';
import type { OAuthDeps } from './deps.ts';
import { claimsForScope } from './demo-users.ts';
import { checkDPoP } from '../dpop/check.ts';
import { REFRESH_TOKEN_TTL_MS, type IssuerProfile } from './issuers.ts';
import { IssuerTokens } from './tokens.ts';

export interface TokenRequest {
  body: Record<string, string | undefined>;
  authorization?: string;
  dpop?: string | string[];
  /** The token endpoint URL as the client addressed it (for DPoP htu). */
  url: string;
}

export interface TokenResponseBody {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** The token endpoint of one issuer (RFC 6749 section 3.2, 4.1.3, 4.4, 6; RFC 7636; RFC 9449). */
export class TokenEndpoint {
  readonly tokens: IssuerTokens;

  constructor(
    private readonly deps: OAuthDeps,
    readonly profile: IssuerProfile,
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
    const grantType = request.body.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    const { client } = await this.authenticate(request);
    const proof = await checkDPoP(request.dpop, { method: 'POST', url: request.url }, this.deps.dpopServer('as'));
    if (!['authorization_code', 'refresh_token', 'client_credentials'].includes(grantType)) {
      throw new OAuthError(
        'unsupported_grant_type',
        'Supported: authorization_code, refresh_token, client_credentials',
      );
    }
    if (!client.grant_types.includes(grantType))
      throw new OAuthError('unauthorized_client', `This client may not use the ${grantType} grant`);
    const ctx = { client, jkt: proof?.jkt };
    if (grantType === 'authorization_code') return this.authorizationCode(request.body, ctx);
    if (grantType === 'refresh_token') return this.refresh(request.body, ctx);
    return this.clientCredentials(request.body, ctx);
  }

  private async authorizationCode(
    body: TokenRequest['body'],
    { client, jkt }: { client: AuthenticatedClient['client']; jkt?: string },
  ): Promise<TokenResponseBody> {
    const code = body.code;
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    const codeId = sha256(code);
    const { snapshot } = await this.deps.codes.get(codeId);
    const grant = snapshot.context.grant;
    if (!grant || grant.issuer !== this.profile.issuer)
      throw invalidGrant('The authorization code is invalid, expired or already used');
    if (snapshot.value === 'redeemed' || snapshot.value === 'replayed') {
      await this.revokeProductsOf(codeId);
      throw invalidGrant('The authorization code is invalid, expired or already used');
    }
    if (grant.clientId !== client.client_id) throw invalidGrant('The authorization code was issued to another client');
    if (body.redirect_uri !== grant.redirectUri)
      throw invalidGrant('redirect_uri does not match the authorization request');
    if (grant.codeChallenge !== undefined) {
      if (!verifierMatches(body.code_verifier, grant.codeChallenge))
        throw invalidGrant('code_verifier is missing, malformed or does not match the code_challenge (PKCE S256)');
    } else if (body.code_verifier !== undefined) {
      throw invalidGrant('code_verifier sent for a code issued without a code_challenge');
    }
    const at = this.deps.clock.now();
    const access = await this.tokens.accessToken({
      sub: grant.sub,
      clientId: client.client_id,
      scope: grant.scope,
      nowMs: at,
      authTime: Math.floor(grant.authTime / 1000),
      jkt,
    });
    const wantsRefresh =
      client.grant_types.includes('refresh_token') &&
      (!this.profile.openid || grant.scope.split(' ').includes('offline_access'));
    const familyId = wantsRefresh ? randomToken(16) : undefined;
    const redeemed = await this.deps.codes.execute(codeId, {
      type: 'code.redeemed',
      at,
      accessJti: access.jti,
      ...(familyId ? { refreshFamily: familyId } : {}),
    });
    if (!redeemed.accepted) {
      if (redeemed.snapshot.value === 'redeemed') await this.revokeProductsOf(codeId);
      throw invalidGrant('The authorization code is invalid, expired or already used');
    }
    const response: TokenResponseBody = {
      access_token: access.token,
      token_type: jkt ? 'DPoP' : 'Bearer',
      expires_in: access.expiresIn,
      scope: grant.scope,
    };
    if (familyId) {
      response.refresh_token = await this.startFamily(familyId, {
        clientId: client.client_id,
        sub: grant.sub,
        scope: grant.scope,
        authTime: grant.authTime,
        jkt: client.client_type === 'public' ? jkt : undefined,
        accessJti: access.jti,
        at,
      });
    }
    if (this.profile.openid && grant.scope.split(' ').includes('openid')) {
      const user = this.deps.users.get(grant.sub)!;
      response.id_token = await this.tokens.idToken({
        sub: grant.sub,
        clientId: client.client_id,
        nowMs: at,
        authTime: grant.authTime,
        nonce: grant.nonce,
        accessToken: access.token,
        claims: idTokenClaims(claimsForScope(user, grant.scope)),
      });
    }
    return response;
  }

  /** RFC 6749 section 10.5: a replayed code revokes what its first redemption produced. */
  private async revokeProductsOf(codeId: string): Promise<void> {
    const { snapshot } = await this.deps.codes.get(codeId);
    const products = snapshot.context.products;
    if (snapshot.value !== 'redeemed' || !products) return;
    await this.deps.codes.execute(codeId, {
      type: 'code.replayed',
      at: this.deps.clock.now(),
      revokesAccess: [products.accessJti],
      ...(products.refreshFamily ? { revokesFamily: products.refreshFamily } : {}),
    });
    if (products.refreshFamily) {
      await this.deps.families.execute(products.refreshFamily, ({ snapshot: family }) => ({
        type: 'refresh.revoked',
        at: this.deps.clock.now(),
        reason: 'authorization code replayed',
        revokesAccess: family.context.accessJtis,
      }));
    }
  }

  private async startFamily(
    familyId: string,
    f: { clientId: string; sub: string; scope: string; authTime: number; jkt?: string; accessJti: string; at: number },
  ): Promise<string> {
    const secret = randomToken(32);
    await this.deps.families.create(familyId, {
      type: 'refresh.issued',
      at: f.at,
      tokenHash: sha256(secret),
      accessJti: f.accessJti,
      issuer: this.profile.issuer,
      clientId: f.clientId,
      sub: f.sub,
      scope: f.scope,
      authTime: f.authTime,
      ...(f.jkt ? { jkt: f.jkt } : {}),
      expiresAt: f.at + REFRESH_TOKEN_TTL_MS,
    });
    return `${familyId}.${secret}`;
  }

  private async refresh(
    body: TokenRequest['body'],
    { client, jkt }: { client: AuthenticatedClient['client']; jkt?: string },
  ): Promise<TokenResponseBody> {
    const presented = body.refresh_token;
    if (!presented) throw new OAuthError('invalid_request', 'refresh_token is required');
    const [familyId, secret] = presented.split('.');
    if (!familyId || !secret) throw invalidGrant('The refresh token is invalid, expired or revoked');
    const { snapshot } = await this.deps.families.get(familyId);
    const grant = snapshot.context.grant;
    if (!grant || grant.issuer !== this.profile.issuer || grant.clientId !== client.client_id)
      throw invalidGrant('The refresh token is invalid, expired or revoked');
    if (grant.jkt && grant.jkt !== jkt)
      throw invalidGrant('The refresh token is bound to a DPoP key; send a proof signed with it');
    let scope = grant.scope;
    if (body.scope !== undefined) {
      const requested = body.scope.split(' ').filter(Boolean);
      if (requested.some((s) => !grant.scope.split(' ').includes(s)))
        throw new OAuthError('invalid_scope', 'A refresh may only narrow the granted scope');
      scope = requested.join(' ');
    }
    const at = this.deps.clock.now();
    const presentedHash = sha256(secret);
    if (snapshot.context.retiredHashes.includes(presentedHash)) {
      await this.deps.families.execute(familyId, ({ snapshot: s }) => ({
        type: 'refresh.reused',
        at,
        presentedHash,
        revokesAccess: s.context.accessJtis,
      }));
      throw invalidGrant('The refresh token was already used; the whole token family is now revoked');
    }
    const access = await this.tokens.accessToken({
      sub: grant.sub,
      clientId: client.client_id,
      scope,
      nowMs: at,
      authTime: Math.floor(grant.authTime / 1000),
      jkt,
    });
    const next = randomToken(32);
    const rotated = await this.deps.families.execute(familyId, {
      type: 'refresh.rotated',
      at,
      presentedHash,
      tokenHash: sha256(next),
      accessJti: access.jti,
    });
    if (!rotated.accepted) throw invalidGrant('The refresh token is invalid, expired or revoked');
    const response: TokenResponseBody = {
      access_token: access.token,
      token_type: jkt ? 'DPoP' : 'Bearer',
      expires_in: access.expiresIn,
      scope,
      refresh_token: `${familyId}.${next}`,
    };
    if (this.profile.openid && scope.split(' ').includes('openid')) {
      const user = this.deps.users.get(grant.sub)!;
      response.id_token = await this.tokens.idToken({
        sub: grant.sub,
        clientId: client.client_id,
        nowMs: at,
        authTime: grant.authTime,
        accessToken: access.token,
        claims: idTokenClaims(claimsForScope(user, scope)),
      });
    }
    return response;
  }

  private async clientCredentials(
    body: TokenRequest['body'],
    { client, jkt }: { client: AuthenticatedClient['client']; jkt?: string },
  ): Promise<TokenResponseBody> {
    if (client.client_type === 'public')
      throw new OAuthError('unauthorized_client', 'Public clients cannot use client_credentials');
    const allowed = client.scope
      .split(' ')
      .filter((s) => !['openid', 'offline_access', 'profile', 'email', 'phone'].includes(s));
    const requested = body.scope === undefined ? allowed : body.scope.split(' ').filter(Boolean);
    if (requested.some((s) => !allowed.includes(s)))
      throw new OAuthError('invalid_scope', `This client may request: ${allowed.join(' ')}`);
    const scope = requested.join(' ');
    const access = await this.tokens.accessToken({
      sub: client.client_id,
      clientId: client.client_id,
      scope,
      nowMs: this.deps.clock.now(),
      jkt,
    });
    return { access_token: access.token, token_type: jkt ? 'DPoP' : 'Bearer', expires_in: access.expiresIn, scope };
  }
}

/** ID tokens carry the scope's claims except those that belong only at UserInfo. */
function idTokenClaims(claims: Record<string, unknown>): Record<string, unknown> {
  const { sub, ...rest } = claims;
  void sub;
  return rest;
}
