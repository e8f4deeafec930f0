import { OAuthError, oauthError } from '../errors.ts';
import { challenge } from './www-authenticate.ts';
import type { OAuthDeps } from './deps.ts';
import { claimsForScope } from './demo-users.ts';
import { checkDPoP } from '../dpop/check.ts';
import type { IssuerProfile } from './issuers.ts';
import { isMetadataDocumentId } from './clients/metadata-document.ts';
import type { AccessTokenClaims, IssuerTokens } from './tokens.ts';

export interface PresentedToken {
  /** `Bearer` or `DPoP`, as the Authorization header said; `body` for RFC 6750 section 2.2. */
  scheme: 'Bearer' | 'DPoP' | 'body';
  token: string;
  dpop?: string | string[];
  method: string;
  url: string;
}

/** What a resource may refuse a request with, each sent with a challenge (RFC 6750 §3.1, RFC 9449 §7.1). */
type ResourceErrorName =
  'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof:at_resource' | 'use_dpop_nonce:at_resource';

/** The 401 of RFC 6750 section 3 (and RFC 9449 section 7.1 for DPoP), with RFC 9728's pointer. */
export function invalidTokenError(
  description: string,
  options: {
    scheme?: 'Bearer' | 'DPoP';
    resourceMetadata?: string;
    error?: ResourceErrorName;
    scope?: string;
  } = {},
): OAuthError {
  const refusal = oauthError(options.error ?? 'invalid_token', description);
  const scheme = options.scheme ?? 'Bearer';
  const params: Array<[string, string | undefined]> = [
    ['error', refusal.error],
    ['error_description', description],
    ['scope', options.scope],
    ['resource_metadata', options.resourceMetadata],
  ];
  // RFC 9449 §7.1: a DPoP challenge names the algorithms the resource accepts.
  if (scheme === 'DPoP') params.unshift(['algs', 'ES256 RS256 EdDSA']);
  return refusal.withHeaders({ 'www-authenticate': challenge(scheme, params) });
}

/**
 * RFC 6750 §3.1: a request that carried no token at all. The challenge names no error code (the
 * client did not try), only where to learn more and the scope to ask for.
 */
export const tokenRequired = (
  description: string,
  options: { resourceMetadata?: string; scope?: string; realm?: string },
): OAuthError =>
  oauthError('invalid_token', description).withHeaders({
    'www-authenticate': challenge('Bearer', [
      ['realm', options.realm],
      ['resource_metadata', options.resourceMetadata],
      ['scope', options.scope],
    ]),
  });

/** RFC 6750 §3.1: a valid token without the scope the resource needs is 403 `insufficient_scope`, with the challenge naming it. */
export const insufficientScope = (
  scope: string,
  options: { scheme?: 'Bearer' | 'DPoP'; resourceMetadata?: string } = {},
): OAuthError =>
  invalidTokenError(`The access token lacks the ${scope} scope`, {
    ...options,
    error: 'insufficient_scope',
    scope,
  });

/**
 * RFC 9449 §7.1: a DPoP proof refused at a resource is a 401 with a `DPoP` challenge naming the error
 * (`invalid_dpop_proof`, or `use_dpop_nonce` with its `DPoP-Nonce`), never a bare 400.
 */
export function dpopChallenge(error: OAuthError, resourceMetadata?: string): OAuthError {
  const name = error.error === 'use_dpop_nonce' ? 'use_dpop_nonce:at_resource' : 'invalid_dpop_proof:at_resource';
  return invalidTokenError(error.description, { scheme: 'DPoP', error: name, resourceMetadata }).withHeaders(
    error.headers,
  );
}

/**
 * Access to a protected resource of one issuer with its access tokens: signature, audience, expiry,
 * revocation, and for DPoP-bound tokens (`cnf.jkt`) a proof with `ath` from the bound key.
 */
export class ProtectedResource {
  constructor(
    private readonly deps: OAuthDeps,
    private readonly tokens: IssuerTokens,
    readonly profile: IssuerProfile,
    private readonly resourceMetadata?: string,
    /** RFC 8707: the audience a token must carry here; the issuer's default resource when absent. */
    private readonly audience?: string,
  ) {}

  async authorize(presented: PresentedToken): Promise<AccessTokenClaims> {
    const fail = (description: string) =>
      invalidTokenError(description, {
        scheme: presented.scheme === 'DPoP' ? 'DPoP' : 'Bearer',
        resourceMetadata: this.resourceMetadata,
      });
    const claims = await this.tokens.verifyAccessToken(presented.token, this.deps.clock.now(), this.audience);
    if (!claims) throw fail('The access token is invalid, expired, or not issued for this resource');
    if (await this.deps.revoked.isRevoked(claims.jti)) throw fail('The access token was revoked');
    if (!(await this.clientStillExists(claims.client_id)))
      throw fail('The client of this access token no longer exists');
    const bound = claims.cnf?.jkt;
    if (bound) {
      if (presented.scheme !== 'DPoP')
        throw fail('This access token is DPoP-bound; use the DPoP authorization scheme with a proof');
      const proof = await checkDPoP(
        presented.dpop,
        { method: presented.method, url: presented.url, accessToken: presented.token },
        this.deps.dpopServer('rs'),
      ).catch((e: OAuthError) => {
        throw dpopChallenge(e, this.resourceMetadata);
      });
      if (!proof) throw fail('A DPoP proof is required with a DPoP-bound token');
      if (proof.jkt !== bound) throw fail('The DPoP proof key is not the key the token is bound to');
    } else if (presented.scheme === 'DPoP') {
      throw fail('This access token is not DPoP-bound; use the Bearer scheme');
    }
    return claims;
  }

  /**
   * RFC 7592 §2.3: a deleted (or lapsed) client's tokens are revoked. A registered client is looked up
   * in its stream's cached fold; a metadata-document client stands for as long as its document did.
   */
  private async clientStillExists(clientId: string | undefined): Promise<boolean> {
    if (typeof clientId !== 'string' || isMetadataDocumentId(clientId)) return true;
    return (await this.deps.clients.find(clientId).catch(() => undefined)) !== undefined;
  }

  /** OpenID Connect Core section 5.3: the claims of the token's subject for its scope. */
  async userInfo(claims: AccessTokenClaims): Promise<Record<string, unknown>> {
    if (!claims.scope.split(' ').includes('openid'))
      throw insufficientScope('openid', { resourceMetadata: this.resourceMetadata });
    // A pairwise client's `sub` is its own (OIDC Core §8.1): the person is found through the client's sector.
    const client = await this.deps.clients.find(claims.client_id).catch(() => undefined);
    const user = client ? this.deps.subjects.userFor(client, claims.sub) : this.deps.users.get(claims.sub);
    if (!user) throw invalidTokenError('The token subject is not a user', { resourceMetadata: this.resourceMetadata });
    return { ...claimsForScope(user, claims.scope), sub: claims.sub };
  }
}
