import { createHmac } from 'node:crypto';
import type { GrantContext } from './token/context.ts';
import { PRE_AUTHORIZED_GRANT, tokenResponse } from './token/grants.ts';
import { mintAccessToken } from './token/mint.ts';
import { StatelessValues } from './stateless-values.ts';
import {
  hash,
  isNotificationDescription,
  offerOf,
  requestedConfiguration,
  sameHash,
  sixDigits,
} from './request-rules.ts';
import { statusDocument } from './status.ts';
import type { JWK } from 'jose';
import { issuanceMachine } from '../../machines/issuance.ts';
import { singleUseMachine } from '../../machines/single-use.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { verifyOwnJwtSync } from '../crypto/jws.ts';
import { randomToken, sha256 } from '../crypto/random.ts';
import { checkDPoP } from '../dpop/check.ts';
import { DPoPError, type VerifiedProof } from '../dpop/proof.ts';
import {
  accessTokenFromHeader,
  dpopChallenge,
  insufficientScope,
  invalidTokenError,
} from '../oauth/protected-resources.ts';
import { DPoPNonces } from '../dpop/nonce.ts';
import { OAuthError, oauthError, invalidRequest, notFound } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import type { KeyRing } from '../keys.ts';
import { isPrototypeName } from '../untrusted/keys.ts';
import { issueCredential } from './credentials.ts';
import { decryptRequest, responseEncryptionOf, type ResponseEncryption } from './encryption.ts';
import {
  checkClientAttestation,
  checkKeyAttestation,
  type AttestationTrust,
  type AttestedClient,
  type AttestedKeyLevels,
} from './attestation.ts';
import { checkProof, checkProofSet, type CheckedProof } from './proofs.ts';
import { BATCH_SIZE, OFFER_TTL_S, type IssuerPki, type IssuerSettings } from './settings.ts';

export { PRE_AUTHORIZED_GRANT };
const KEY_SET = 'oid4vci';

export interface OfferInput {
  credential_configuration_ids?: string[];
  grant?: 'pre-authorized_code' | 'authorization_code';
  tx_code?: boolean;
  deferred?: boolean;
  by_value?: boolean;
  user?: string;
}

/** How long a deferred credential takes, and the `interval` the wallet is told to wait (decisions section 8). */
export const DEFERRED_INTERVAL_S = 3;

export interface PresentedRequest {
  method: string;
  url: string;
  authorization?: string;
  dpop?: string | string[];
  /** `x-fapi-interaction-id`, when the wallet sent one (a UUID). */
  interactionId?: string;
  /** `OAuth-Client-Attestation` and `OAuth-Client-Attestation-PoP` headers. */
  clientAttestation?: string | string[];
  clientAttestationPop?: string | string[];
}

/**
 * The OID4VCI issuer and its authorization server for the pre-authorized code flow (decisions
 * section 8): offers, token, nonce, credential and notification, each offer an `issuance:<id>`
 * stream. Codes, tokens and ids are stored only as hashes.
 */
export class IssuerService {
  readonly offers: ActorRuntime<typeof issuanceMachine>;
  private readonly once: ActorRuntime<typeof singleUseMachine>;
  /** Separate nonce sources for the authorization server and the resource (credential) side. */
  readonly asNonces: DPoPNonces;
  readonly rsNonces: DPoPNonces;
  /** c_nonces and attestation challenges. */
  private readonly values: StatelessValues;

  constructor(
    log: EventLog,
    private readonly keys: KeyRing,
    readonly pki: IssuerPki,
    readonly settings: IssuerSettings,
    readonly clock: Clock,
    private readonly users: ReadonlyMap<string, { id: string; claims: Record<string, unknown> }>,
  ) {
    // An offer's stream holds a handful of events (offered, token, credential, notified): folding them beats writing snapshots.
    this.offers = new ActorRuntime(log, issuanceMachine, 'issuance', 10_000, false);
    this.once = new ActorRuntime(log, singleUseMachine, 'once');
    this.asNonces = new DPoPNonces(clock, keys.secret('dpop-nonce'), 'oid4vci-as');
    this.rsNonces = new DPoPNonces(clock, keys.secret('dpop-nonce'), 'oid4vci-rs');
    this.values = new StatelessValues(keys.secret('c-nonce'), clock, (purpose, value) => this.useOnce(purpose, value));
    this.grantContext = this.buildGrantContext();
  }

  /** Where attestations come from: the demo attester CA, and OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM. */
  private attestationTrust(): AttestationTrust {
    return {
      issuer: this.settings.issuer,
      trustAnchors: [this.pki.attester.ca.pem, ...this.settings.attestationTrustAnchorsPem],
      nowMs: this.clock.now(),
      useOnce: (purpose, value) => this.useOnce(purpose, value),
      spendChallenge: (challenge) =>
        this.values.spend('attestation-challenge', challenge).then(
          () => true,
          () => false,
        ),
    };
  }

  /** The client attestation of a request, when it carries one; its PoP jti is spent on first sight. */
  async attestedClient(request: PresentedRequest): Promise<AttestedClient | undefined> {
    if (request.clientAttestation === undefined && request.clientAttestationPop === undefined) return undefined;
    return checkClientAttestation(request.clientAttestation, request.clientAttestationPop, this.attestationTrust());
  }

  /** `POST /oid4vci/challenge`: an attestation_challenge for the client attestation PoP. */
  challenge(): { attestation_challenge: string } {
    return { attestation_challenge: this.values.issue('attestation-challenge') };
  }

  private async useOnce(purpose: string, value: string): Promise<boolean> {
    // Almost always a first sighting: appended without a read (a replay conflicts, is reloaded and refused).
    return (
      await this.once.create(`${purpose}:${sha256(value)}`, { type: 'value.used', at: this.clock.now(), purpose })
    ).accepted;
  }

  // ----- offers -----

  async createOffer(input: OfferInput) {
    const ids = input.credential_configuration_ids ?? [...this.settings.configurations.keys()].slice(0, 1);
    if (ids.length === 0 || ids.some((id) => !this.settings.configurations.has(id)))
      throw invalidRequest('credential_configuration_ids names an unknown configuration');
    const user = input.user ?? 'alice';
    if (!this.users.has(user)) throw invalidRequest(`user must be one of ${[...this.users.keys()].join(', ')}`);
    const offerId = randomToken(12);
    const at = this.clock.now();
    if (input.grant === 'authorization_code') {
      if (input.tx_code === true) throw invalidRequest('tx_code belongs to the pre-authorized_code grant');
      const issuerState = this.offerSecret('issuer_state', offerId);
      await this.offers.create(offerId, {
        type: 'issuance.offered',
        at,
        grant: 'authorization_code',
        configuration_ids: ids,
        issuer_state_hash: hash(issuerState),
        expires_at: at + OFFER_TTL_S * 1000,
        by_value: input.by_value === true,
        user,
        ...(input.deferred === true ? { deferred: true } : {}),
      });
      const offer = {
        credential_issuer: this.settings.issuer,
        credential_configuration_ids: ids,
        grants: { authorization_code: { issuer_state: issuerState } },
      };
      const offerUri = `${this.settings.issuer}/credential-offer/${offerId}`;
      return {
        offer_id: offerId,
        ...(input.by_value === true ? { credential_offer: offer } : { credential_offer_uri: offerUri }),
        offer_url: `openid-credential-offer://?${input.by_value === true ? `credential_offer=${encodeURIComponent(JSON.stringify(offer))}` : `credential_offer_uri=${encodeURIComponent(offerUri)}`}`,
        issuer_state: issuerState,
        status_uri: `${this.settings.issuer}/offers/${offerId}/status`,
        expires_in: OFFER_TTL_S,
      };
    }
    const code = this.offerSecret('pre-authorized_code', offerId);
    const txCode = input.tx_code === true ? sixDigits() : undefined;
    await this.offers.create(offerId, {
      type: 'issuance.offered',
      at,
      grant: 'pre-authorized_code',
      configuration_ids: ids,
      code_hash: hash(code),
      ...(txCode ? { tx_code_hash: hash(txCode) } : {}),
      expires_at: at + OFFER_TTL_S * 1000,
      by_value: input.by_value === true,
      user,
      ...(input.deferred === true ? { deferred: true } : {}),
    });
    const offer = this.offerDocument(ids, code, txCode !== undefined);
    const offerUri = `${this.settings.issuer}/credential-offer/${offerId}`;
    const credentialOffer = input.by_value === true ? { credential_offer: offer } : { credential_offer_uri: offerUri };
    const query =
      input.by_value === true
        ? `credential_offer=${encodeURIComponent(JSON.stringify(offer))}`
        : `credential_offer_uri=${encodeURIComponent(offerUri)}`;
    return {
      offer_id: offerId,
      ...credentialOffer,
      offer_url: `openid-credential-offer://?${query}`,
      pre_authorized_code: code,
      ...(txCode ? { tx_code_value: txCode } : {}),
      status_uri: `${this.settings.issuer}/offers/${offerId}/status`,
      expires_in: OFFER_TTL_S,
    };
  }

  private offerDocument(ids: string[], code: string, txCode: boolean) {
    return {
      credential_issuer: this.settings.issuer,
      credential_configuration_ids: ids,
      grants: {
        [PRE_AUTHORIZED_GRANT]: {
          'pre-authorized_code': code,
          ...(txCode
            ? { tx_code: { length: 6, input_mode: 'numeric', description: 'The six digits shown with the offer' } }
            : {}),
        },
      },
    };
  }

  /** The offer document by reference (OpenID4VCI 1.0 §4.1.3); the wallet's fetch is recorded. */
  async fetchOffer(offerId: string): Promise<unknown> {
    const { snapshot, version } = await this.offers.get(offerId);
    if (version === 0) throw notFound('No such credential offer');
    if (snapshot.context.expiresAt <= this.clock.now() || snapshot.status === 'done') {
      await this.recordLapse(offerId);
      throw notFound('The credential offer has expired');
    }
    await this.offers.execute(offerId, { type: 'issuance.offer_fetched', at: this.clock.now() });
    if (snapshot.context.grant === 'authorization_code')
      return {
        credential_issuer: this.settings.issuer,
        credential_configuration_ids: snapshot.context.configurationIds,
        grants: { authorization_code: { issuer_state: this.offerSecret('issuer_state', offerId) } },
      };
    return this.offerDocument(
      snapshot.context.configurationIds,
      this.offerSecret('pre-authorized_code', offerId),
      snapshot.context.txCodeHash !== undefined,
    );
  }

  /**
   * An offer's pre-authorized code or issuer_state: the offer id and an HMAC of it under the server
   * secret, so any instance sharing the key file can serve the offer by reference (the log keeps only
   * the hash), and a restart does not lose it.
   */
  private offerSecret(kind: 'pre-authorized_code' | 'issuer_state', offerId: string): string {
    return `${offerId}.${createHmac('sha256', this.keys.secret('offer-code')).update(`${kind}:${offerId}`).digest('base64url').slice(0, 32)}`;
  }

  async status(offerId: string) {
    const { snapshot, version } = await this.offers.get(offerId);
    if (version === 0) throw notFound('No such credential offer');
    return statusDocument(String(snapshot.value), snapshot.context, this.clock.now());
  }

  // ----- token endpoint -----

  /** A DPoP proof at one of the issuer's endpoints: verified, nonce (when required), single use. */
  async dpop(request: PresentedRequest, side: 'as' | 'rs', accessToken?: string): Promise<VerifiedProof | undefined> {
    const nonces = side === 'as' ? this.asNonces : this.rsNonces;
    return checkDPoP(
      request.dpop,
      { method: request.method, url: request.url, accessToken },
      {
        side,
        nowMs: () => this.clock.now(),
        ...(this.settings.dpopNonceRequired ? { nonces } : {}),
        useOnce: (purpose, value) => this.useOnce(purpose, value),
      },
    );
  }

  /** `POST /oid4vci/token`: the grant's handler from the table (token/grants.ts). */
  token(form: Record<string, string | undefined>, request: PresentedRequest) {
    return tokenResponse(this.grantContext, form, request);
  }

  /** What the grant handlers use of the issuer: built once (at the end of the constructor), not per token request. */
  private readonly grantContext: GrantContext;

  private buildGrantContext(): GrantContext {
    return {
      offers: this.offers,
      clock: this.clock,
      attestedClient: (request) => this.attestedClient(request),
      dpop: (offerId, request) => this.recordingChallenges(offerId, 'as', () => this.dpop(request, 'as')),
      recordLapse: (offerId) => this.recordLapse(offerId),
      requireHaipClient: (ids, attested, proof) => this.requireHaipClient(ids, attested, proof),
      mintToken: (offerId, c, options) =>
        mintAccessToken(
          { keys: this.keys, settings: this.settings, clock: this.clock, offers: this.offers },
          offerId,
          c,
          options,
        ),
    };
  }

  /** Runs a DPoP check; a use_dpop_nonce challenge it answers is recorded on the issuance, when known. */
  async recordingChallenges<T>(offerId: string | undefined, side: 'as' | 'rs', check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } catch (error) {
      if (
        offerId &&
        error instanceof OAuthError &&
        error.error === 'use_dpop_nonce' &&
        (await this.offers.get(offerId)).version > 0
      ) {
        await this.offers.execute(offerId, { type: 'issuance.nonce_challenged', at: this.clock.now(), side });
      }
      throw error;
    }
  }

  /** An offer met after its lifetime is closed in the log (`issuance.expired`, reason lapsed) the first time. */
  async recordLapse(offerId: string): Promise<void> {
    const { snapshot } = await this.offers.get(offerId);
    if (
      snapshot.value === 'offered' ||
      snapshot.value === 'offer_fetched' ||
      snapshot.value === 'authorization_requested' ||
      snapshot.value === 'code_issued'
    ) {
      await this.offers.execute(offerId, { type: 'issuance.expired', at: this.clock.now(), reason: 'lapsed' });
    }
  }

  /** HAIP configurations need an attested client and a DPoP-bound token. */
  requireHaipClient(
    configurationIds: string[],
    attested: AttestedClient | undefined,
    proof: VerifiedProof | undefined,
  ): void {
    if (!configurationIds.some((id) => this.settings.configurations.get(id)?.haip)) return;
    if (!attested)
      throw oauthError('invalid_client', 'HAIP configurations need client attestation (attest_jwt_client_auth)');
    if (!proof) throw new DPoPError('HAIP configurations need a DPoP proof');
  }

  // ----- nonce endpoint -----

  /** A fresh c_nonce: expiry and randomness under an HMAC (no state until it is used). */
  nonce(): { c_nonce: string } {
    return { c_nonce: this.values.issue('c-nonce') };
  }

  // ----- credential endpoint -----

  private async accessToken(request: PresentedRequest) {
    const presented = accessTokenFromHeader(request.authorization);
    const unauthorized = (why: string) => invalidTokenError(why, { scheme: presented?.scheme ?? 'Bearer' });
    if (!presented) throw unauthorized('An access token from the token endpoint is required');
    const { scheme, token } = presented;
    const claims = verifyOwnJwtSync(token, (kid) => this.keys.verificationKey(KEY_SET, 'ES256', kid), {
      issuer: this.settings.issuer,
      audience: this.settings.issuer,
      typ: 'at+jwt',
      now: this.clock.now(),
    });
    if (!claims) throw unauthorized('The access token is invalid or expired');
    // The subject is the user whose data the credential carries: an unknown one is never replaced by another.
    const user = typeof claims.sub === 'string' ? this.users.get(claims.sub) : undefined;
    if (!user) throw unauthorized("The access token's subject is not a known user");
    const bound = (claims.cnf as { jkt?: string } | undefined)?.jkt;
    if (bound) {
      if (scheme !== 'DPoP') throw unauthorized('This access token is DPoP-bound: use the DPoP scheme with a proof');
      const issuance = typeof claims.issuance === 'string' ? claims.issuance : undefined;
      const proof = await this.recordingChallenges(issuance, 'rs', () => this.dpop(request, 'rs', token)).catch(
        (e: OAuthError) => {
          throw e.error === 'invalid_dpop_proof' || e.error === 'use_dpop_nonce' ? dpopChallenge(e) : e;
        },
      );
      if (!proof) throw dpopChallenge(new DPoPError('A DPoP proof (with ath) is required with a DPoP-bound token'));
      if (proof.jkt !== bound) throw unauthorized('The DPoP proof key is not the key the token is bound to');
    } else if (scheme === 'DPoP') throw unauthorized('This access token is not DPoP-bound: use the Bearer scheme');
    return { token, claims, user, offerId: String(claims.issuance ?? '') };
  }

  /**
   * Encryption rules of a credential or deferred request (decisions section 8): required encryption
   * absent, or response encryption asked in plain JSON, is `invalid_encryption_parameters`.
   */
  private async openRequest(
    body: unknown,
    encrypted: boolean,
  ): Promise<{ request: unknown; encryptTo?: ResponseEncryption }> {
    const request = encrypted ? await decryptRequest(body, this.pki.requestEncryption) : body;
    if (!encrypted && this.settings.encryptionRequired)
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
    if (this.settings.encryptionRequired && !encryptTo)
      throw oauthError('invalid_encryption_parameters', 'This issuer requires credential_response_encryption');
    return { request, ...(encryptTo ? { encryptTo } : {}) };
  }

  async credential(rawBody: unknown, request: PresentedRequest, encrypted = false) {
    const { token, claims, user, offerId } = await this.accessToken(request);
    const { request: body, encryptTo } = await this.openRequest(rawBody, encrypted);
    const loaded = await this.offers.get(offerId);
    if (loaded.version === 0 || !sameHash(token, loaded.snapshot.context.tokenHash))
      throw invalidTokenError('The access token does not belong to a live offer');
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw oauthError('invalid_credential_request', 'The credential request is a JSON object');
    const req = body as Record<string, unknown>;
    const configurationId = requestedConfiguration(req, claims.authorization_details);
    const configuration = this.settings.configurations.get(configurationId);
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
          issuer: this.settings.issuer,
          algs: configuration.proofAlgs,
          nowMs: this.clock.now(),
          ...(clientId ? { clientId } : {}),
        }),
      );
    const cNonce = checkProofSet(checked);
    let keyAttestation: AttestedKeyLevels | undefined;
    if (configuration.haip) {
      const trust = this.attestationTrust();
      for (const p of checked)
        keyAttestation = await checkKeyAttestation(p.keyAttestation, {
          proofJwk: p.jwk,
          cNonce,
          required: configuration.haip.keyAttestationsRequired,
          trust,
        });
    }
    await this.values.spend('c-nonce', cNonce);
    const at = this.clock.now();
    if (loaded.snapshot.context.deferred) {
      const transactionId = `${offerId}.${randomToken(16)}`;
      const outcome = await this.offers.execute(offerId, {
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
    const credentials = await this.issueAll(
      configurationId,
      checked.map((p) => p.jwk as JWK),
      user,
    );
    const notificationId = `${offerId}.${randomToken(16)}`;
    const interactionId = request.interactionId;
    await this.offers.execute(offerId, {
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
  private async issueAll(
    configurationId: string,
    holderJwks: JWK[],
    user: { id: string; claims: Record<string, unknown> },
  ) {
    const configuration = this.settings.configurations.get(configurationId)!;
    const credentials = [];
    for (const holderJwk of holderJwks)
      credentials.push({
        credential: await issueCredential(configuration, {
          settings: this.settings,
          pki: this.pki,
          keys: this.keys,
          holderJwk,
          user,
          nowMs: this.clock.now(),
        }),
      });
    return credentials;
  }

  // ----- deferred credential endpoint -----

  /** 202 with the same transaction id until the credential is ready, then 200 once (decisions section 8). */
  async deferredCredential(rawBody: unknown, request: PresentedRequest, encrypted = false) {
    const { user, offerId } = await this.accessToken(request);
    const { request: body, encryptTo } = await this.openRequest(rawBody, encrypted);
    const id =
      body && typeof body === 'object' && !Array.isArray(body)
        ? (body as Record<string, unknown>).transaction_id
        : undefined;
    const invalid = () =>
      oauthError('invalid_transaction_id', "The transaction_id is unknown, already collected, or not this token's");
    if (typeof id !== 'string' || offerOf(id) !== offerId) throw invalid();
    const { snapshot } = await this.offers.get(offerId);
    const c = snapshot.context;
    if (snapshot.value !== 'deferred' || !sameHash(id, c.transactionIdHash)) throw invalid();
    const at = this.clock.now();
    if (at < (c.readyAt ?? Infinity))
      return { status: 202, body: { transaction_id: id, interval: DEFERRED_INTERVAL_S }, encryptTo };
    const credentials = await this.issueAll(c.configurationId!, c.holderJwks as JWK[], user);
    const notificationId = `${offerId}.${randomToken(16)}`;
    const outcome = await this.offers.execute(offerId, {
      type: 'issuance.deferred_collected',
      at,
      notification_id_hash: hash(notificationId),
    });
    if (!outcome.accepted) throw invalid();
    return { status: 200, body: { credentials, notification_id: notificationId }, encryptTo };
  }

  // ----- notification endpoint -----

  async notification(body: unknown, request: PresentedRequest): Promise<void> {
    const { offerId } = await this.accessToken(request);
    const req = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
    const id = req.notification_id;
    const event = req.event;
    if (typeof id !== 'string' || offerOf(id) !== offerId)
      throw oauthError('invalid_notification_id', 'The notification_id is unknown');
    const { snapshot } = await this.offers.get(offerId);
    if (!sameHash(id, snapshot.context.notificationIdHash))
      throw oauthError('invalid_notification_id', 'The notification_id is unknown');
    if (event !== 'credential_accepted' && event !== 'credential_failure' && event !== 'credential_deleted')
      throw oauthError(
        'invalid_notification_request',
        'event must be credential_accepted, credential_failure or credential_deleted',
      );
    if (req.event_description !== undefined && !isNotificationDescription(req.event_description))
      throw oauthError(
        'invalid_notification_request',
        "event_description must be ASCII text without '\"' or '\\' (OpenID4VCI 1.0 §11.1)",
      );
    const outcome = await this.offers.execute(offerId, {
      type: 'issuance.notified',
      at: this.clock.now(),
      event,
      ...(request.interactionId ? { interaction_id: request.interactionId } : {}),
    });
    if (!outcome.accepted)
      throw oauthError(
        'invalid_notification_request',
        'Once credential_accepted was sent, credential_failure is refused',
      );
  }
}
