import type { OAuthDeps } from './deps.ts';
import { claimsForScope, type DemoUser } from './demo-users.ts';
import { isMetadataDocumentId } from './clients/metadata-document.ts';
import { ResourceGuard } from './resource-guard.ts';
import type { AccessTokenClaims, IssuerTokens } from './tokens.ts';

/** A resource of one of the origin's authorization servers, and what it asks of the tokens it takes. */
export interface OAuthResourceOptions {
  /** RFC 9728: the resource's metadata, named in its challenges. */
  resourceMetadata?: string;
  /** RFC 8707: the audience a token must carry here; the server's default resource when absent. */
  audience?: string;
  scope?: string;
  bodyTokens?: boolean;
  say?: { missing?: string };
  bareChallengeWhenMissing?: boolean;
}

/**
 * RFC 7592 §2.3: a deleted (or lapsed) client's tokens are revoked. A registered client is looked up in
 * its stream's cached fold; a metadata-document client stands for as long as its document did.
 */
async function clientStillExists(deps: OAuthDeps, clientId: string): Promise<boolean> {
  if (isMetadataDocumentId(clientId)) return true;
  return (await deps.clients.find(clientId).catch(() => undefined)) !== undefined;
}

/** Why a verified token of this server no longer stands: revoked, or its client gone. */
async function standingOf(deps: OAuthDeps, claims: AccessTokenClaims): Promise<string | undefined> {
  if (await deps.revoked.isRevoked(claims.jti)) return 'The access token was revoked';
  if (!(await clientStillExists(deps, claims.client_id))) return 'The client of this access token no longer exists';
  return undefined;
}

/** The resource guard of a resource protected by one of the origin's authorization servers (subject: the token's). */
export function oauthResourceGuard(
  deps: OAuthDeps,
  tokens: IssuerTokens,
  options: OAuthResourceOptions = {},
): ResourceGuard<AccessTokenClaims, string> {
  return new ResourceGuard({
    verify: (token) => tokens.verifyAccessToken(token, deps.clock.now(), options.audience),
    dpop: deps.dpopServer('rs'),
    standing: (claims) => standingOf(deps, claims),
    subject: (claims) => claims.sub,
    ...options,
  });
}

/**
 * UserInfo's guard (OpenID Connect Core §5.3): the OpenID Provider's tokens with scope `openid`, in the
 * header or the form body; the subject is the person, found through the client's sector when pairwise (§8.1).
 */
export function userInfoGuard(
  deps: OAuthDeps,
  tokens: IssuerTokens,
  resourceMetadata: string,
): ResourceGuard<AccessTokenClaims, DemoUser> {
  return new ResourceGuard({
    verify: (token) => tokens.verifyAccessToken(token, deps.clock.now()),
    dpop: deps.dpopServer('rs'),
    standing: (claims) => standingOf(deps, claims),
    resourceMetadata,
    scope: 'openid',
    bodyTokens: true,
    say: {
      missing: 'An access token is required in the Authorization header or the form body',
      unknownSubject: 'The token subject is not a user',
    },
    subject: async (claims) => {
      const client = await deps.clients.find(claims.client_id).catch(() => undefined);
      return client ? deps.subjects.userFor(client, claims.sub) : deps.users.get(claims.sub);
    },
  });
}

/** OpenID Connect Core §5.3: the claims of the token's subject for its scope. */
export const userInfoClaims = (user: DemoUser, claims: AccessTokenClaims): Record<string, unknown> => ({
  ...claimsForScope(user, claims.scope),
  sub: claims.sub,
});
