import type { JWK } from 'jose';
import { randomToken } from '../crypto/random.ts';
import { oauthError } from '../errors.ts';
import { insufficientScope, invalidTokenError } from '../oauth/protected-resources.ts';
import { isPrototypeName } from '../untrusted/keys.ts';
import { checkKeyAttestation, type AttestedKeyLevels } from './attestation.ts';
import type { DemoUser, IssuerCore, PresentedRequest } from './core.ts';
import { credentialAccess, openRequest } from './credential-access.ts';
import { issueCredential } from './credentials.ts';
import { checkProof, checkProofSet, type CheckedProof } from './proofs.ts';
import { hash, offerOf, requestedConfiguration, sameHash } from './request-rules.ts';
import { BATCH_SIZE } from './settings.ts';

/** How long a deferred credential takes, and the `interval` the wallet is told to wait (decisions section 8). */
export const DEFERRED_INTERVAL_S = 3;

/** `POST /oid4vci/credential` (OpenID4VCI 1.0 §8): key proofs checked, then credentials now or a deferral. */
export async function credential(issuer: IssuerCore, rawBody: unknown, request: PresentedRequest, encrypted = false) {
  const { token, claims, user, offerId } = await credentialAccess(issuer, request);
  const { request: body, encryptTo } = await openRequest(issuer, rawBody, encrypted);
  const loaded = await issuer.offers.get(offerId);
  if (loaded.version === 0 || !sameHash(token, loaded.snapshot.context.tokenHash))
    throw invalidTokenError('The access token does not belong to a live offer');
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw oauthError('invalid_credential_request', 'The credential request is a JSON object');
  const req = body as Record<string, unknown>;
  const configurationId = requestedConfiguration(req, claims.authorization_details);
  const configuration = issuer.settings.configurations.get(configurationId);
  if (!configuration || isPrototypeName(configurationId))
    throw oauthError('unknown_credential_configuration', `No credential configuration ${configurationId}`);
  if (
    !String(claims.scope ?? '')
      .split(' ')
      .includes(configuration.scope)
  )
    throw insufficientScope(configuration.scope, { scheme: claims.cnf ? 'DPoP' : 'Bearer' });
  if (req.proof !== undefined)
    throw oauthError(
      'invalid_credential_request',
      'The single proof object of the drafts is not taken: OpenID4VCI 1.0 §8.2 sends proofs, e.g. {"proofs":{"jwt":["<key proof>"]}}',
    );
  const proofs = req.proofs as { jwt?: unknown } | undefined;
  if (!proofs || typeof proofs !== 'object' || !Array.isArray(proofs.jwt) || proofs.jwt.length === 0)
    throw oauthError('invalid_proof', 'proofs.jwt must be a non-empty array of key proofs');
  if (proofs.jwt.length > BATCH_SIZE)
    throw oauthError('invalid_credential_request', `At most ${BATCH_SIZE} proofs per request (batch_size)`);
  const checked: CheckedProof[] = [];
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : undefined;
  for (const jwt of proofs.jwt)
    checked.push(
      await checkProof(jwt, {
        issuer: issuer.settings.issuer,
        algs: configuration.proofAlgs,
        nowMs: issuer.clock.now(),
        ...(clientId ? { clientId } : {}),
      }),
    );
  const cNonce = checkProofSet(checked);
  let keyAttestation: AttestedKeyLevels | undefined;
  if (configuration.haip) {
    const trust = issuer.attestationTrust();
    for (const p of checked)
      keyAttestation = await checkKeyAttestation(p.keyAttestation, {
        proofJwk: p.jwk,
        cNonce,
        required: configuration.haip.keyAttestationsRequired,
        trust,
      });
  }
  await issuer.values.spend('c-nonce', cNonce);
  const at = issuer.clock.now();
  if (loaded.snapshot.context.deferred) {
    const transactionId = `${offerId}.${randomToken(16)}`;
    const outcome = await issuer.offers.execute(offerId, {
      type: 'issuance.deferred',
      at,
      configuration_id: configurationId,
      proof_count: checked.length,
      holder_jkts: checked.map((p) => p.jkt),
      holder_jwks: checked.map((p) => p.jwk as Record<string, unknown>),
      transaction_id_hash: hash(transactionId),
      ready_at: at + DEFERRED_INTERVAL_S * 1000,
    });
    if (!outcome.accepted)
      throw oauthError('invalid_credential_request', 'A deferred credential of this offer was already requested');
    return { status: 202, body: { transaction_id: transactionId, interval: DEFERRED_INTERVAL_S }, encryptTo };
  }
  const credentials = await issueAll(
    issuer,
    configurationId,
    checked.map((p) => p.jwk as JWK),
    user,
  );
  const notificationId = `${offerId}.${randomToken(16)}`;
  const interactionId = request.interactionId;
  await issuer.offers.execute(offerId, {
    type: 'issuance.credential_issued',
    at,
    configuration_id: configurationId,
    proof_count: checked.length,
    holder_jkts: checked.map((p) => p.jkt),
    notification_id_hash: hash(notificationId),
    ...(interactionId ? { interaction_id: interactionId } : {}),
    ...(keyAttestation ? { key_attestation: keyAttestation } : {}),
    request_encrypted: encrypted,
    response_encrypted: encryptTo !== undefined,
  });
  return { status: 200, body: { credentials, notification_id: notificationId }, encryptTo };
}

/** One credential per holder key, in the order of the proofs. */
async function issueAll(
  issuer: IssuerCore,

  configurationId: string,
  holderJwks: JWK[],
  user: DemoUser,
) {
  const configuration = issuer.settings.configurations.get(configurationId)!;
  const credentials = [];
  for (const holderJwk of holderJwks)
    credentials.push({
      credential: await issueCredential(configuration, {
        settings: issuer.settings,
        pki: issuer.pki,
        keys: issuer.keys,
        holderJwk,
        user,
        nowMs: issuer.clock.now(),
      }),
    });
  return credentials;
}

/** 202 with the same transaction id until the credential is ready, then 200 once (decisions section 8). */
export async function deferredCredential(
  issuer: IssuerCore,
  rawBody: unknown,
  request: PresentedRequest,
  encrypted = false,
) {
  const { user, offerId } = await credentialAccess(issuer, request);
  const { request: body, encryptTo } = await openRequest(issuer, rawBody, encrypted);
  const id =
    body && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).transaction_id
      : undefined;
  const invalid = () =>
    oauthError('invalid_transaction_id', "The transaction_id is unknown, already collected, or not this token's");
  if (typeof id !== 'string' || offerOf(id) !== offerId) throw invalid();
  const { snapshot } = await issuer.offers.get(offerId);
  const c = snapshot.context;
  if (snapshot.value !== 'deferred' || !sameHash(id, c.transactionIdHash)) throw invalid();
  const at = issuer.clock.now();
  if (at < (c.readyAt ?? Infinity))
    return { status: 202, body: { transaction_id: id, interval: DEFERRED_INTERVAL_S }, encryptTo };
  const credentials = await issueAll(issuer, c.configurationId!, c.holderJwks as JWK[], user);
  const notificationId = `${offerId}.${randomToken(16)}`;
  const outcome = await issuer.offers.execute(offerId, {
    type: 'issuance.deferred_collected',
    at,
    notification_id_hash: hash(notificationId),
  });
  if (!outcome.accepted) throw invalid();
  return { status: 200, body: { credentials, notification_id: notificationId }, encryptTo };
}
