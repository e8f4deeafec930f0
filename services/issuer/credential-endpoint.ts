import { listSignerFor } from '../status/signers.ts';
import { issuanceStates, type IssuanceEvent } from '../../machines/issuance.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
import type { JWK } from 'jose';
import { randomToken } from '../crypto/random.ts';
import { oauthError } from '../errors.ts';
import { checkKeyAttestation, type AttestedKeyLevels } from './attestation.ts';
import type { DemoUser, IssuerCore, PresentedRequest } from './core.ts';
import { credentialAccess, openRequest } from './credential-access.ts';
import {
  credentialRequestObject,
  deferredTransactionId,
  keyProofJwts,
  DRAFT_PROOF_NOTE,
  requestedCredentialConfiguration,
  requireConfigurationScope,
  requireLiveOfferToken,
  unknownTransactionId,
} from './credential-rules.ts';
import { issueCredential } from './credentials.ts';
import { checkProof, checkProofSet, type CheckedProof } from './proofs.ts';
import { hash, sameHash } from './request-rules.ts';
import type { CredentialConfiguration } from './settings.ts';

/** How long a deferred credential takes, and the `interval` the wallet is told to wait (decisions section 8). */
const DEFERRED_INTERVAL_S = 3;

/** `POST /oid4vci/credential` (OpenID4VCI 1.0 §8): key proofs checked, then credentials now or a deferral. */
export async function credential(issuer: IssuerCore, rawBody: unknown, request: PresentedRequest, encrypted = false) {
  const { token, claims, user, offerId } = await credentialAccess(issuer, request);
  const { request: body, encryptTo } = await openRequest(issuer, rawBody, encrypted);
  const loaded = await issuer.offers.get(offerId);
  requireLiveOfferToken(token, { version: loaded.version, tokenHash: loaded.snapshot.context.tokenHash });
  const req = credentialRequestObject(body);
  const configuration = requestedCredentialConfiguration(
    req,
    claims.authorization_details,
    issuer.settings.configurations,
  );
  const configurationId = configuration.id;
  requireConfigurationScope(claims, configuration);
  const { jwts: proofJwts, draft: draftProof } = keyProofJwts(req);
  const notes = draftProof ? { notes: [DRAFT_PROOF_NOTE] } : {};
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : undefined;
  const { checked, cNonce, keyAttestation } = await checkedKeyProofs(issuer, proofJwts, configuration, clientId);
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
      ...(draftProof ? { draft_proof: true } : {}),
    });
    if (!outcome.accepted)
      throw oauthError('invalid_credential_request', 'A deferred credential of this offer was already requested');
    return {
      status: 202,
      body: { transaction_id: transactionId, interval: DEFERRED_INTERVAL_S, ...notes },
      encryptTo,
    };
  }
  const notificationId = `${offerId}.${randomToken(16)}`;
  const interactionId = request.interactionId;
  // Handed out only once the log holds it: a finished issuance (notified, expired) issues nothing more.
  const { recorded, issued } = await issueOnceAccepted(
    issuer,
    offerId,
    {
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
      ...(draftProof ? { draft_proof: true } : {}),
    },
    () =>
      issueAll(
        issuer,
        configurationId,
        checked.map((p) => p.jwk as JWK),
        user,
      ),
  );
  if (!issued)
    throw oauthError(
      'credential_request_denied',
      `This issuance is ${String(recorded.snapshot.value)}; it issues no more credentials`,
    );
  return {
    status: 200,
    body: { credentials: issued.credentials, notification_id: notificationId, ...notes },
    encryptTo,
  };
}

/**
 * §8.2.1 and Appendix F.1: every key proof checked on its own, then as a set (one c_nonce); a HAIP
 * configuration also needs each proof's key attestation.
 */
async function checkedKeyProofs(
  issuer: IssuerCore,
  proofJwts: unknown[],
  configuration: CredentialConfiguration,
  clientId: string | undefined,
) {
  const checked: CheckedProof[] = [];
  for (const jwt of proofJwts)
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
  return { checked, cNonce, keyAttestation };
}

/** One credential per holder key, in the order of the proofs, each at a status slot of its own. */
type Issued = Awaited<ReturnType<typeof issueAll>>;
type IssuingEvent = Extract<IssuanceEvent, { type: 'issuance.credential_issued' | 'issuance.deferred_collected' }>;

/**
 * Decide first, then allocate and sign: inside the offer's turn, the machine is asked whether it takes
 * the event; only then are status slots allocated and credentials signed, so a refused request leaks no
 * slot. A decision retried after a concurrent write reuses what was issued.
 */
async function issueOnceAccepted(
  issuer: IssuerCore,
  offerId: string,
  event: DistributiveOmit<IssuingEvent, 'statuses'>,
  issue: () => Promise<Issued>,
) {
  let issued: Issued | undefined;
  const recorded = await issuer.offers.execute(offerId, async (current) => {
    if (!current.snapshot.can({ ...event, statuses: [] } as IssuingEvent)) return undefined;
    issued ??= await issue();
    return { ...event, statuses: issued.statuses } as IssuingEvent;
  });
  return { recorded, issued: recorded.accepted ? issued : undefined };
}

async function issueAll(issuer: IssuerCore, configurationId: string, holderJwks: JWK[], user: DemoUser) {
  const configuration = issuer.settings.configurations.get(configurationId)!;
  const credentials = [];
  const statuses = [];
  // The list is signed by the key that signs the credential, with the same trust material.
  const signer = listSignerFor(configuration, issuer.keys.signing('oid4vci', 'ES256').kid);
  for (const holderJwk of holderJwks) {
    const slot = await issuer.statusSlots.allocate(signer);
    statuses.push({ list_id: slot.listId, idx: slot.idx });
    credentials.push({
      credential: await issueCredential(configuration, {
        settings: issuer.settings,
        pki: issuer.pki,
        keys: issuer.keys,
        holderJwk,
        user,
        nowMs: issuer.clock.now(),
        status: {
          idx: slot.idx,
          uri: issuer.statusSlots.tokenUri(slot.listId),
          bitstringUrl: (purpose) => issuer.statusSlots.bitstringUrl(purpose, slot.listId),
        },
      }),
    });
  }
  return { credentials, statuses };
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
  const id = deferredTransactionId(body, offerId);
  const { snapshot } = await issuer.offers.get(offerId);
  const c = snapshot.context;
  if (!issuanceStates.deferred(snapshot) || !sameHash(id, c.transactionIdHash)) throw unknownTransactionId();
  const at = issuer.clock.now();
  if (at < (c.readyAt ?? Infinity))
    return { status: 202, body: { transaction_id: id, interval: DEFERRED_INTERVAL_S }, encryptTo };
  const notificationId = `${offerId}.${randomToken(16)}`;
  const { issued } = await issueOnceAccepted(
    issuer,
    offerId,
    { type: 'issuance.deferred_collected', at, notification_id_hash: hash(notificationId) },
    () => issueAll(issuer, c.configurationId!, c.holderJwks as JWK[], user),
  );
  if (!issued) throw unknownTransactionId();
  return { status: 200, body: { credentials: issued.credentials, notification_id: notificationId }, encryptTo };
}
