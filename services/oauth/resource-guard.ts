import { checkDPoP, type DPoPServer } from '../dpop/check.ts';
import { DPoPError } from '../dpop/proof.ts';
import { oauthError, type OAuthError } from '../errors.ts';
import type { VerifiedAccessToken } from './access-token-verifier.ts';
import { accessTokenFromHeader } from './authorization-header.ts';
import { dpopChallenge, insufficientScope, invalidTokenError, tokenRequired } from './protected-resources.ts';

/** What a request to a protected resource presents. */
export interface ResourceRequest {
  authorization?: string;
  dpop?: string | string[];
  method: string;
  /** The request's URL without its query: a DPoP proof's `htu`. */
  url: string;
  /** RFC 6750 §2.2: the `access_token` of a form body, where the resource takes one (UserInfo). */
  bodyToken?: string;
}

/** How one resource takes access tokens: the guard's configuration. */
export interface ResourcePolicy<C extends VerifiedAccessToken, S> {
  /** The one verifier (access-token-verifier.ts), configured for the server whose tokens this resource takes. */
  verify(token: string): Promise<C | undefined>;
  /** The resource side of DPoP (nonces, `jti` once); absent where no token is ever DPoP-bound. */
  dpop?: DPoPServer;
  /** RFC 9728: this resource's metadata, named in every challenge. */
  resourceMetadata?: string;
  /** The scope every call needs: 403 `insufficient_scope` naming it when the token lacks it. */
  scope?: string;
  /** Whether a form-body token is taken (RFC 6750 §2.2); the header only otherwise. */
  bodyTokens?: boolean;
  /** Why a verified token no longer stands (revoked, its client gone), or undefined. */
  standing?(claims: C): Promise<string | undefined>;
  /** Where the token's subject is looked up; a subject not found is a refused token. */
  subject(claims: C): S | undefined | Promise<S | undefined>;
  /** Told of every DPoP nonce challenge the guard answers (the issuer records them on the offer's stream). */
  onNonceChallenge?(claims: C): Promise<void>;
  /** The words of the refusals that differ per resource. */
  say?: { missing?: string; invalid?: string; unknownSubject?: string };
  /** A missing token gets a challenge naming no error (RFC 6750 §3.1), as the MCP authorization spec shows. */
  bareChallengeWhenMissing?: boolean;
}

/** A request the guard let through: the token, its claims and its subject. */
export interface Admitted<C, S> {
  scheme: 'Bearer' | 'DPoP' | 'body';
  token: string;
  claims: C;
  subject: S;
  scopes: string[];
}

/**
 * The one resource-side token check of every protected endpoint (docs/architecture.md, "The resource
 * guard"), in one order: a token in one place, the verifier, its standing, the DPoP binding (`cnf.jkt`
 * with a proof carrying `ath`, RFC 9449 §7), the scope, then the subject where the resource looks it up. Every refusal is a 401 with its
 * challenge, or 403 `insufficient_scope` (RFC 6750 §3.1).
 */
export class ResourceGuard<C extends VerifiedAccessToken, S> {
  constructor(private readonly policy: ResourcePolicy<C, S>) {}

  async admit(request: ResourceRequest): Promise<Admitted<C, S>> {
    const { policy } = this;
    const resourceMetadata = policy.resourceMetadata;
    const presented = this.presented(request);
    const scheme = presented.scheme === 'DPoP' ? 'DPoP' : 'Bearer';
    const fail = (description: string) => invalidTokenError(description, { scheme, resourceMetadata });
    const claims = await policy.verify(presented.token);
    if (!claims)
      throw fail(policy.say?.invalid ?? 'The access token is invalid, expired, or not issued for this resource');
    const lapsed = await policy.standing?.(claims);
    if (lapsed) throw fail(lapsed);
    await this.checkBinding(request, presented, claims, fail);
    const scopes = claims.scope.split(' ').filter(Boolean);
    if (policy.scope && !scopes.includes(policy.scope))
      throw insufficientScope(policy.scope, { scheme, resourceMetadata });
    const subject = await policy.subject(claims);
    if (subject === undefined) throw fail(policy.say?.unknownSubject ?? "The access token's subject is not known here");
    return { scheme: presented.scheme, token: presented.token, claims, subject, scopes };
  }

  /** The token, from the `Authorization` header or (where taken) the form body, never both (RFC 6750 §2). */
  private presented(request: ResourceRequest): { scheme: 'Bearer' | 'DPoP' | 'body'; token: string } {
    const { policy } = this;
    const bodyToken = policy.bodyTokens ? request.bodyToken : undefined;
    if (request.authorization) {
      if (bodyToken !== undefined)
        throw oauthError('invalid_request', 'Send the access token in one place only (RFC 6750 section 2)');
      const fromHeader = accessTokenFromHeader(request.authorization);
      if (!fromHeader)
        throw invalidTokenError('The Authorization header is malformed', {
          resourceMetadata: policy.resourceMetadata,
        });
      return fromHeader;
    }
    if (bodyToken !== undefined) return { scheme: 'body', token: bodyToken };
    const missing = policy.say?.missing ?? 'An access token is required';
    throw policy.bareChallengeWhenMissing
      ? tokenRequired(missing, { resourceMetadata: policy.resourceMetadata, scope: policy.scope })
      : invalidTokenError(missing, { resourceMetadata: policy.resourceMetadata });
  }

  /** RFC 9449 §7: a bound token needs the DPoP scheme and a proof from its key; an unbound one the Bearer scheme. */
  private async checkBinding(
    request: ResourceRequest,
    presented: { scheme: 'Bearer' | 'DPoP' | 'body'; token: string },
    claims: C,
    fail: (description: string) => OAuthError,
  ): Promise<void> {
    const bound = (claims.cnf as { jkt?: unknown } | undefined)?.jkt;
    if (bound === undefined) {
      if (presented.scheme === 'DPoP') throw fail('This access token is not DPoP-bound; use the Bearer scheme');
      return;
    }
    if (presented.scheme !== 'DPoP')
      throw fail('This access token is DPoP-bound; use the DPoP authorization scheme with a proof');
    const resourceMetadata = this.policy.resourceMetadata;
    if (!this.policy.dpop) throw fail('This resource takes no DPoP-bound access tokens');
    const proof = await checkDPoP(
      request.dpop,
      { method: request.method, url: request.url, accessToken: presented.token },
      this.policy.dpop,
    ).catch(async (e: OAuthError) => {
      if (e.error === 'use_dpop_nonce') await this.policy.onNonceChallenge?.(claims);
      throw e.error === 'invalid_dpop_proof' || e.error === 'use_dpop_nonce' ? dpopChallenge(e, resourceMetadata) : e;
    });
    if (!proof)
      throw dpopChallenge(
        new DPoPError('A DPoP proof (with ath) is required with a DPoP-bound token'),
        resourceMetadata,
      );
    if (proof.jkt !== bound) throw fail('The DPoP proof key is not the key the token is bound to');
  }
}
