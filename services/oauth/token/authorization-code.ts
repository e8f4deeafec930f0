import { randomToken, sha256 } from '../../crypto/random.ts';
import { authorizationCodeStates } from '../../../machines/authorization-code.ts';
import { oauthError } from '../../errors.ts';
import { verifierMatches } from '../pkce.ts';
import { tokenResource } from '../resources.ts';
import {
  invalidGrant,
  tokenType,
  type OAuthGrantContext,
  type OAuthGrantHandler,
  type TokenResponseBody,
} from './context.ts';
import { withIdToken } from './id-token.ts';
import { startRefreshFamily } from './refresh-family.ts';

const CODE_UNUSABLE = 'The authorization code is invalid, expired or already used';

/** RFC 6749 §4.1.3 with RFC 7636 §4.6: an authorization code, redeemed once, for the client it was issued to. */
export const authorizationCodeGrant: OAuthGrantHandler = async (ctx, body) => {
  const { client, jkt, deps, profile } = ctx;
  const code = body.code;
  if (!code) throw oauthError('invalid_request', 'code is required');
  const codeId = sha256(code);
  const { snapshot } = await deps.codes.get(codeId);
  const grant = snapshot.context.grant;
  if (!grant || grant.issuer !== profile.issuer) throw invalidGrant(CODE_UNUSABLE);
  if (authorizationCodeStates.spent(snapshot)) {
    await revokeProductsOf(ctx, codeId);
    throw invalidGrant(CODE_UNUSABLE);
  }
  if (grant.clientId !== client.client_id) throw invalidGrant('The authorization code was issued to another client');
  if (body.redirect_uri !== grant.redirectUri)
    throw invalidGrant('redirect_uri does not match the authorization request');
  checkCodeVerifier(body.code_verifier, grant.codeChallenge);
  const resource = tokenResource(body.resource, grant.resource, profile.resources);
  const at = deps.clock.now();
  const access = await ctx.tokens.accessToken({
    sub: deps.subjects.subjectFor(client, grant.sub),
    resource,
    clientId: client.client_id,
    scope: grant.scope,
    nowMs: at,
    authTime: Math.floor(grant.authTime / 1000),
    jkt,
  });
  const wantsRefresh =
    client.grant_types.includes('refresh_token') &&
    (!profile.openid || grant.scope.split(' ').includes('offline_access'));
  const familyId = wantsRefresh ? randomToken(16) : undefined;
  const redeemed = await deps.codes.execute(codeId, {
    type: 'code.redeemed',
    at,
    accessJti: access.jti,
    ...(familyId ? { refreshFamily: familyId } : {}),
  });
  if (!redeemed.accepted) {
    if (authorizationCodeStates.redeemed(redeemed.snapshot)) await revokeProductsOf(ctx, codeId);
    throw invalidGrant(CODE_UNUSABLE);
  }
  const response: TokenResponseBody = {
    access_token: access.token,
    token_type: tokenType(jkt),
    expires_in: access.expiresIn,
    scope: grant.scope,
  };
  if (familyId) {
    response.refresh_token = await startRefreshFamily(ctx, familyId, {
      sub: grant.sub,
      scope: grant.scope,
      authTime: grant.authTime,
      jkt: client.client_type === 'public' ? jkt : undefined,
      resource,
      accessJti: access.jti,
      at,
    });
  }
  return withIdToken(ctx, response, { ...grant, at });
};

/** RFC 7636 §4.6: a code issued with a challenge needs its verifier; one issued without takes none. */
export function checkCodeVerifier(verifier: string | undefined, challenge: string | undefined): void {
  if (challenge !== undefined) {
    if (!verifierMatches(verifier, challenge))
      throw invalidGrant('code_verifier is missing, malformed or does not match the code_challenge (PKCE S256)');
  } else if (verifier !== undefined) {
    throw invalidGrant('code_verifier sent for a code issued without a code_challenge');
  }
}

/** RFC 6749 §10.5: a replayed code revokes what its first redemption produced. */
async function revokeProductsOf(ctx: OAuthGrantContext, codeId: string): Promise<void> {
  const { deps } = ctx;
  const { snapshot } = await deps.codes.get(codeId);
  const products = snapshot.context.products;
  if (!authorizationCodeStates.redeemed(snapshot) || !products) return;
  await deps.codes.execute(codeId, {
    type: 'code.replayed',
    at: deps.clock.now(),
    revokesAccess: [products.accessJti],
    ...(products.refreshFamily ? { revokesFamily: products.refreshFamily } : {}),
  });
  if (products.refreshFamily) {
    await deps.families.execute(products.refreshFamily, ({ snapshot: family }) => ({
      type: 'refresh.revoked',
      at: deps.clock.now(),
      reason: 'authorization code replayed',
      revokesAccess: family.context.accessJtis,
    }));
  }
}
