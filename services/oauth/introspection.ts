import { oauthError } from '../errors.ts';
import { refreshFamilyStates } from '../../machines/refresh-family.ts';
import { sha256 } from '../crypto/random.ts';
import type { OAuthDeps } from './deps.ts';
import type { OAuthTokenServer } from './token/oauth-server.ts';

/** RFC 7662 introspection and RFC 7009 revocation for authenticated clients of one issuer. */
export class TokenIntrospection {
  /** Tokens for any resource of the issuer (RFC 8707) are its tokens. */
  private readonly audiences: string[];

  constructor(
    private readonly deps: OAuthDeps,
    private readonly endpoint: OAuthTokenServer,
  ) {
    const { profile } = endpoint;
    this.audiences = [...new Set([profile.accessTokenAudience, ...profile.resources])];
  }

  async introspect(request: {
    body: Record<string, string | undefined>;
    authorization?: string;
  }): Promise<Record<string, unknown>> {
    await this.endpoint.authenticate(request);
    const token = request.body.token;
    if (!token) throw oauthError('invalid_request', 'token is required');
    const now = this.deps.clock.now();
    // The hint only chooses which kind is looked up first (RFC 7662 section 2.1).
    const lookups =
      request.body.token_type_hint === 'refresh_token'
        ? [this.asRefreshToken, this.asAccessToken]
        : [this.asAccessToken, this.asRefreshToken];
    for (const lookup of lookups) {
      const found = await lookup.call(this, token, now);
      if (found) return found;
    }
    return { active: false };
  }

  private async asAccessToken(token: string, now: number): Promise<Record<string, unknown> | undefined> {
    const claims = await this.endpoint.tokens.verifyAccessToken(token, now, this.audiences);
    if (!claims || (await this.deps.revoked.isRevoked(claims.jti))) return undefined;
    return {
      active: true,
      scope: claims.scope,
      client_id: claims.client_id,
      sub: claims.sub,
      token_type: claims.cnf?.jkt ? 'DPoP' : 'Bearer',
      exp: claims.exp,
      iat: claims.iat,
      iss: claims.iss,
      aud: claims.aud,
      jti: claims.jti,
      ...(claims.cnf ? { cnf: claims.cnf } : {}),
    };
  }

  private async asRefreshToken(token: string): Promise<Record<string, unknown> | undefined> {
    const family = await this.refreshFamily(token);
    if (!family) return undefined;
    const g = family.grant!;
    // The family keeps the user id; the client was only ever told its own (perhaps pairwise) subject.
    const owner = await this.deps.clients.find(g.clientId).catch(() => undefined);
    return {
      active: true,
      scope: g.scope,
      client_id: g.clientId,
      sub: owner ? this.deps.subjects.subjectFor(owner, g.sub) : g.sub,
      token_type: 'refresh_token',
      exp: Math.floor(g.expiresAt / 1000),
      iss: g.issuer,
      ...(g.jkt ? { cnf: { jkt: g.jkt } } : {}),
    };
  }

  /** Always succeeds for the caller (RFC 7009 section 2.2); revokes only the caller's own tokens. */
  async revoke(request: { body: Record<string, string | undefined>; authorization?: string }): Promise<void> {
    const { client } = await this.endpoint.authenticate(request);
    const token = request.body.token;
    if (token === undefined) throw oauthError('invalid_request', 'token is required');
    const claims = await this.endpoint.tokens.verifyAccessToken(token, this.deps.clock.now(), this.audiences);
    if (claims) {
      if (claims.client_id === client.client_id) await this.deps.revokeAccessToken(claims.jti);
      return;
    }
    const [familyId] = token.split('.');
    const family = await this.refreshFamily(token);
    if (family && family.grant!.clientId === client.client_id) {
      await this.deps.families.execute(familyId, ({ snapshot }) => ({
        type: 'refresh.revoked',
        at: this.deps.clock.now(),
        reason: 'revoked by the client',
        revokesAccess: snapshot.context.accessJtis,
      }));
    }
  }

  private async refreshFamily(token: string) {
    const [familyId, secret] = token.split('.');
    if (!familyId || !secret || token.split('.').length !== 2) return undefined;
    const { snapshot } = await this.deps.families.get(familyId);
    const ctx = snapshot.context;
    if (!refreshFamilyStates.active(snapshot) || !ctx.grant || ctx.grant.issuer !== this.endpoint.profile.issuer)
      return undefined;
    if (ctx.currentHash !== sha256(secret) || this.deps.clock.now() >= ctx.grant.expiresAt) return undefined;
    return ctx;
  }
}
