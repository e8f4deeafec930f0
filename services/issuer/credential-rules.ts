import { oauthError } from '../errors.ts';
import { insufficientScope, invalidTokenError } from '../oauth/protected-resources.ts';
import { isPrototypeName } from '../untrusted/keys.ts';
import { offerOf, requestedConfiguration, sameHash } from './request-rules.ts';
import { BATCH_SIZE, type CredentialConfiguration } from './settings.ts';

/**
 * The checks of the credential and deferred credential endpoints (OpenID4VCI 1.0 §8, §9), each a
 * named function of its inputs alone, so that each can be tested alone.
 */

/** The access token must still be the one its offer issued (a later token of the same offer replaces it). */
export function requireLiveOfferToken(token: string, offer: { version: number; tokenHash?: string | undefined }): void {
  if (offer.version === 0 || !sameHash(token, offer.tokenHash))
    throw invalidTokenError('The access token does not belong to a live offer');
}

/** §8.2: the body of a credential request is a JSON object. */
export function credentialRequestObject(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw oauthError('invalid_credential_request', 'The credential request is a JSON object');
  return body as Record<string, unknown>;
}

/** §8.2 with §8.3.1.2: the configuration the request names, one this issuer offers. */
export function requestedCredentialConfiguration(
  req: Record<string, unknown>,
  authorizationDetails: unknown,
  configurations: ReadonlyMap<string, CredentialConfiguration>,
): CredentialConfiguration {
  const id = requestedConfiguration(req, authorizationDetails);
  const configuration = configurations.get(id);
  if (!configuration || isPrototypeName(id))
    throw oauthError('unknown_credential_configuration', `No credential configuration ${id}`);
  return configuration;
}

/** RFC 6750 §3.1: the token's scope must include the configuration's; the challenge names its scheme. */
export function requireConfigurationScope(
  claims: { scope?: unknown; cnf?: unknown },
  configuration: CredentialConfiguration,
): void {
  const granted = String(claims.scope ?? '').split(' ');
  if (!granted.includes(configuration.scope))
    throw insufficientScope(configuration.scope, { scheme: claims.cnf ? 'DPoP' : 'Bearer' });
}

/** What a wallet is told when it sent the drafts' singular `proof` (docs/issuer.md). */
export const DRAFT_PROOF_NOTE = 'OpenID4VCI 1.0 §8.2 uses proofs; the draft proof was accepted';

/**
 * §8.2: key proofs arrive as `proofs.jwt`, a non-empty array of at most `batch_size`. The drafts'
 * singular `proof` (`{proof_type: "jwt", jwt}`) is taken as a one-element `proofs`, and said so
 * (`draft`): wallets still send it, and the issuance records and answers that it did.
 */
export function keyProofJwts(req: Record<string, unknown>): { jwts: unknown[]; draft: boolean } {
  if (req.proof !== undefined) return { jwts: [draftProofJwt(req)], draft: true };
  const proofs = req.proofs as { jwt?: unknown } | undefined;
  if (!proofs || typeof proofs !== 'object' || !Array.isArray(proofs.jwt) || proofs.jwt.length === 0)
    throw oauthError('invalid_proof', 'proofs.jwt must be a non-empty array of key proofs');
  if (proofs.jwt.length > BATCH_SIZE)
    throw oauthError('invalid_credential_request', `At most ${BATCH_SIZE} proofs per request (batch_size)`);
  return { jwts: proofs.jwt, draft: false };
}

/** The drafts' `proof`: alone (never beside `proofs`), of type `jwt`, with its `jwt`. */
function draftProofJwt(req: Record<string, unknown>): unknown {
  if (req.proofs !== undefined)
    throw oauthError('invalid_credential_request', 'Send proofs or the draft proof, not both (OpenID4VCI 1.0 §8.2)');
  const proof = req.proof as { proof_type?: unknown; jwt?: unknown } | null;
  if (!proof || typeof proof !== 'object' || Array.isArray(proof) || proof.proof_type !== 'jwt')
    throw oauthError('invalid_proof', 'The draft proof must be {"proof_type":"jwt","jwt":"<key proof>"}');
  return proof.jwt;
}

/** §9.1: the deferred request's `transaction_id`, which must name the token's own offer. */
export function deferredTransactionId(body: unknown, offerId: string): string {
  const id =
    body && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).transaction_id
      : undefined;
  if (typeof id !== 'string' || offerOf(id) !== offerId) throw unknownTransactionId();
  return id;
}

/** §9.3: one error for an unknown, collected or foreign transaction id, so none is told apart. */
export const unknownTransactionId = () =>
  oauthError('invalid_transaction_id', "The transaction_id is unknown, already collected, or not this token's");
