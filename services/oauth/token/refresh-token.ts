import { randomToken, sha256 } from '../../crypto/random.ts';
import { oauthError } from '../../errors.ts';
import { tokenResource } from '../resources.ts';
import { invalidGrant, tokenType, type OAuthGrantHandler, type TokenResponseBody } from './context.ts';
import { withIdToken } from './id-token.ts';

const TOKEN_UNUSABLE = 'The refresh token is invalid, expired or revoked';

/** RFC 6749 §6: a refresh, rotated each use; a reused token revokes its whole family (RFC 9700 §4.14.2). */
export const refreshTokenGrant: OAuthGrantHandler = async (ctx, body) => {
  const { client, jkt, deps, profile } = ctx;
  const presented = body.refresh_token;
  if (!presented) throw oauthError('invalid_request', 'refresh_token is required');
  const [familyId, secret] = presented.split('.');
  if (!familyId || !secret) throw invalidGrant(TOKEN_UNUSABLE);
  const { snapshot } = await deps.families.get(familyId);
  const grant = snapshot.context.grant;
  if (!grant || grant.issuer !== profile.issuer || grant.clientId !== client.client_id)
    throw invalidGrant(TOKEN_UNUSABLE);
  if (grant.jkt && grant.jkt !== jkt)
    throw invalidGrant('The refresh token is bound to a DPoP key; send a proof signed with it');
  const scope = narrowedScope(grant.scope, body.scope);
  const at = deps.clock.now();
  const presentedHash = sha256(secret);
  if (snapshot.context.retiredHashes.includes(presentedHash)) {
    await deps.families.execute(familyId, ({ snapshot: s }) => ({
      type: 'refresh.reused',
      at,
      presentedHash,
      revokesAccess: s.context.accessJtis,
    }));
    throw invalidGrant('The refresh token was already used; the whole token family is now revoked');
  }
  const resource = tokenResource(body.resource, grant.resource, profile.resources);
  const access = await ctx.tokens.accessToken({
    sub: deps.subjects.subjectFor(client, grant.sub),
    resource,
    clientId: client.client_id,
    scope,
    nowMs: at,
    authTime: Math.floor(grant.authTime / 1000),
    jkt,
  });
  const next = randomToken(32);
  const rotated = await deps.families.execute(familyId, {
    type: 'refresh.rotated',
    at,
    presentedHash,
    tokenHash: sha256(next),
    accessJti: access.jti,
  });
  if (!rotated.accepted) throw invalidGrant(TOKEN_UNUSABLE);
  const response: TokenResponseBody = {
    access_token: access.token,
    token_type: tokenType(jkt),
    expires_in: access.expiresIn,
    scope,
    refresh_token: `${familyId}.${next}`,
  };
  return withIdToken(ctx, response, { sub: grant.sub, scope, authTime: grant.authTime, at });
};

/** RFC 6749 §6: a refresh may ask for the granted scope or less, never more. */
export function narrowedScope(granted: string, requested: string | undefined): string {
  if (requested === undefined) return granted;
  const asked = requested.split(' ').filter(Boolean);
  if (asked.some((s) => !granted.split(' ').includes(s)))
    throw oauthError('invalid_scope', 'A refresh may only narrow the granted scope');
  return asked.join(' ');
}
