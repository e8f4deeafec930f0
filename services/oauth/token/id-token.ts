import { claimsForScope } from '../demo-users.ts';
import type { OAuthGrantContext, TokenResponseBody } from './context.ts';

/** OpenID Connect Core §3.1.3.3: with `openid` in scope, the token response carries an ID token. */
export async function withIdToken(
  ctx: OAuthGrantContext,
  response: TokenResponseBody,
  grant: { sub: string; scope: string; authTime: number; nonce?: string; at: number },
): Promise<TokenResponseBody> {
  if (!ctx.profile.openid || !grant.scope.split(' ').includes('openid')) return response;
  const user = ctx.deps.users.get(grant.sub)!;
  response.id_token = await ctx.tokens.idToken({
    sub: ctx.deps.subjects.subjectFor(ctx.client, grant.sub),
    clientId: ctx.client.client_id,
    nowMs: grant.at,
    authTime: grant.authTime,
    nonce: grant.nonce,
    accessToken: response.access_token,
    claims: idTokenClaims(claimsForScope(user, grant.scope)),
  });
  return response;
}

/** ID tokens carry the scope's claims except those that belong only at UserInfo. */
export function idTokenClaims(claims: Record<string, unknown>): Record<string, unknown> {
  const { sub, ...rest } = claims;
  void sub;
  return rest;
}
