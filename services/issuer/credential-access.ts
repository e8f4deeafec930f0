import { verifyOwnJwtSync } from '../crypto/jws.ts';
import { DPoPError } from '../dpop/proof.ts';
import { oauthError, type OAuthError } from '../errors.ts';
import { dpopChallenge, invalidTokenError } from '../oauth/protected-resources.ts';
import { accessTokenFromHeader } from '../oauth/authorization-header.ts';
import type { IssuerCore, PresentedRequest } from './core.ts';
import { decryptRequest, responseEncryptionOf, type ResponseEncryption } from './encryption.ts';

const KEY_SET = 'oid4vci';

/**
 * The resource-side check of the credential, deferred and notification endpoints: the issuer's own
 * access token, its subject a known user, and for a DPoP-bound token a proof from the bound key.
 */
export async function credentialAccess(issuer: IssuerCore, request: PresentedRequest) {
  const presented = accessTokenFromHeader(request.authorization);
  const unauthorized = (why: string) => invalidTokenError(why, { scheme: presented?.scheme ?? 'Bearer' });
  if (!presented) throw unauthorized('An access token from the token endpoint is required');
  const { scheme, token } = presented;
  const claims = verifyOwnJwtSync(token, (kid) => issuer.keys.verificationKey(KEY_SET, 'ES256', kid), {
    issuer: issuer.settings.issuer,
    audience: issuer.settings.issuer,
    typ: 'at+jwt',
    now: issuer.clock.now(),
  });
  if (!claims) throw unauthorized('The access token is invalid or expired');
  // The subject is the user whose data the credential carries: an unknown one is never replaced by another.
  const user = typeof claims.sub === 'string' ? issuer.users.get(claims.sub) : undefined;
  if (!user) throw unauthorized("The access token's subject is not a known user");
  const bound = (claims.cnf as { jkt?: string } | undefined)?.jkt;
  if (bound) {
    if (scheme !== 'DPoP') throw unauthorized('This access token is DPoP-bound: use the DPoP scheme with a proof');
    const issuance = typeof claims.issuance === 'string' ? claims.issuance : undefined;
    const proof = await issuer
      .recordingChallenges(issuance, 'rs', () => issuer.dpop(request, 'rs', token))
      .catch((e: OAuthError) => {
        throw e.error === 'invalid_dpop_proof' || e.error === 'use_dpop_nonce' ? dpopChallenge(e) : e;
      });
    if (!proof) throw dpopChallenge(new DPoPError('A DPoP proof (with ath) is required with a DPoP-bound token'));
    if (proof.jkt !== bound) throw unauthorized('The DPoP proof key is not the key the token is bound to');
  } else if (scheme === 'DPoP') throw unauthorized('This access token is not DPoP-bound: use the Bearer scheme');
  return { token, claims, user, offerId: String(claims.issuance ?? '') };
}

/**
 * Encryption rules of a credential or deferred request (decisions section 8): required encryption
 * absent, or response encryption asked in plain JSON, is `invalid_encryption_parameters`.
 */
export async function openRequest(
  issuer: IssuerCore,

  body: unknown,
  encrypted: boolean,
): Promise<{ request: unknown; encryptTo?: ResponseEncryption }> {
  const request = encrypted ? await decryptRequest(body, issuer.pki.requestEncryption) : body;
  if (!encrypted && issuer.settings.encryptionRequired)
    throw oauthError(
      'invalid_encryption_parameters',
      'This issuer requires encrypted credential requests (application/jwt)',
    );
  const params =
    request && typeof request === 'object' && !Array.isArray(request)
      ? (request as Record<string, unknown>).credential_response_encryption
      : undefined;
  if (!encrypted && params !== undefined)
    throw oauthError(
      'invalid_encryption_parameters',
      'Response encryption needs an encrypted request (application/jwt)',
    );
  const encryptTo = responseEncryptionOf(params);
  if (issuer.settings.encryptionRequired && !encryptTo)
    throw oauthError('invalid_encryption_parameters', 'This issuer requires credential_response_encryption');
  return { request, ...(encryptTo ? { encryptTo } : {}) };
}
