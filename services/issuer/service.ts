import { issuanceMachine, issuanceStates } from '../../machines/issuance.ts';
import { singleUseMachine } from '../../machines/single-use.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { sha256 } from '../crypto/random.ts';
import { checkDPoP, type DPoPServer } from '../dpop/check.ts';
import type { ResourceGuard } from '../oauth/resource-guard.ts';
import { credentialGuard, type IssuerAccessClaims } from './credential-guard.ts';
import { DPoPNonces } from '../dpop/nonce.ts';
import { DPoPError, type VerifiedProof } from '../dpop/proof.ts';
import { OAuthError, oauthError } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import type { KeyRing } from '../keys.ts';
import { checkClientAttestation, type AttestationTrust, type AttestedClient } from './attestation.ts';
import type { DemoUser, IssuerCore, PresentedRequest, StatusSlots } from './core.ts';
import { changeCredentialStatus } from './status-change.ts';
import { credential, deferredCredential } from './credential-endpoint.ts';
import { notification } from './notification.ts';
import { createOffer, fetchOffer, offerLink, offerStatus, type OfferInput } from './offers.ts';
import type { IssuerPki, IssuerSettings } from './settings.ts';
import { StatelessValues } from './stateless-values.ts';
import { issuerTokenEndpoint, PRE_AUTHORIZED_GRANT } from './token/grants.ts';
import { mintAccessToken } from './token/mint.ts';

export type { PresentedRequest } from './core.ts';
export type { OfferInput } from './offers.ts';
export { PRE_AUTHORIZED_GRANT };

/**
 * The OID4VCI issuer and its authorization server for the pre-authorized code flow (decisions
 * section 8): offers, token, nonce, credential and notification, each offer an `issuance:<id>`
 * stream. Codes, tokens and ids are stored only as hashes.
 */
export class IssuerService implements IssuerCore {
  readonly offers: ActorRuntime<typeof issuanceMachine>;
  private readonly once: ActorRuntime<typeof singleUseMachine>;
  /** Separate nonce sources for the authorization server and the resource (credential) side. */
  readonly asNonces: DPoPNonces;
  readonly rsNonces: DPoPNonces;
  /** c_nonces and attestation challenges. */
  readonly values: StatelessValues;
  /** The resource guard of the credential, deferred and notification endpoints. */
  readonly resource: ResourceGuard<IssuerAccessClaims, DemoUser>;

  constructor(
    log: EventLog,
    readonly keys: KeyRing,
    readonly pki: IssuerPki,
    readonly settings: IssuerSettings,
    readonly clock: Clock,
    readonly users: ReadonlyMap<string, DemoUser>,
    readonly statusSlots: StatusSlots,
  ) {
    // An offer's stream holds a handful of events (offered, token, credential, notified): folding them beats writing snapshots.
    this.offers = ActorRuntime.of(log, issuanceMachine, 'issuance', 10_000, false);
    this.once = ActorRuntime.of(log, singleUseMachine, 'once');
    this.asNonces = new DPoPNonces(clock, keys.secret('dpop-nonce'), 'oid4vci-as');
    this.rsNonces = new DPoPNonces(clock, keys.secret('dpop-nonce'), 'oid4vci-rs');
    this.values = new StatelessValues(keys.secret('c-nonce'), clock, (purpose, value) => this.useOnce(purpose, value));
    this.tokenEndpoint = this.buildTokenEndpoint();
    this.resource = credentialGuard({
      keys,
      clock,
      issuer: settings.issuer,
      users,
      dpop: this.dpopServer('rs'),
      recordNonceChallenge: (offerId) => this.recordNonceChallenge(offerId, 'rs'),
    });
  }

  /** Where attestations come from: the demo attester CA, and OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM. */
  attestationTrust(): AttestationTrust {
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

  // ----- token endpoint -----

  /** The DPoP settings of one side of the issuer: its nonces (when required), `jti` once. */
  private dpopServer(side: 'as' | 'rs'): DPoPServer {
    return {
      side,
      nowMs: () => this.clock.now(),
      ...(this.settings.dpopNonceRequired ? { nonces: side === 'as' ? this.asNonces : this.rsNonces } : {}),
      useOnce: (purpose, value) => this.useOnce(purpose, value),
    };
  }

  /** A DPoP proof at the issuer's authorization server: verified, nonce (when required), single use. */
  dpop(request: PresentedRequest): Promise<VerifiedProof | undefined> {
    return checkDPoP(request.dpop, { method: request.method, url: request.url }, this.dpopServer('as'));
  }

  /** `POST /oid4vci/token`: the core's token endpoint with the issuer's grants (token/grants.ts). */
  token(form: Record<string, string | undefined>, request: PresentedRequest) {
    return this.tokenEndpoint.handle(form, request);
  }

  /** Built once (at the end of the constructor), not per token request. */
  private readonly tokenEndpoint: ReturnType<typeof issuerTokenEndpoint>;

  private buildTokenEndpoint() {
    return issuerTokenEndpoint({
      attestedClient: (request) => this.attestedClient(request),
      dpop: (offerId, request) => this.recordingChallenges(offerId, () => this.dpop(request)),
      context: {
        offers: this.offers,
        clock: this.clock,
        recordLapse: (offerId) => this.recordLapse(offerId),
        requireHaipClient: (ids, attested, proof) => this.requireHaipClient(ids, attested, proof),
        mintToken: (offerId, c, options) =>
          mintAccessToken(
            { keys: this.keys, settings: this.settings, clock: this.clock, offers: this.offers },
            offerId,
            c,
            options,
          ),
      },
    });
  }

  /** Runs a DPoP check; a use_dpop_nonce challenge it answers is recorded on the issuance, when known. */
  async recordingChallenges<T>(offerId: string | undefined, check: () => Promise<T>): Promise<T> {
    try {
      return await check();
    } catch (error) {
      if (offerId && error instanceof OAuthError && error.error === 'use_dpop_nonce')
        await this.recordNonceChallenge(offerId, 'as');
      throw error;
    }
  }

  /** A DPoP nonce challenge of one side, on the offer's stream (when the offer exists). */
  private async recordNonceChallenge(offerId: string, side: 'as' | 'rs'): Promise<void> {
    if ((await this.offers.get(offerId)).version > 0)
      await this.offers.execute(offerId, { type: 'issuance.nonce_challenged', at: this.clock.now(), side });
  }

  /** An offer met after its lifetime is closed in the log (`issuance.expired`, reason lapsed) the first time. */
  async recordLapse(offerId: string): Promise<void> {
    const { snapshot } = await this.offers.get(offerId);
    if (issuanceStates.lapsable(snapshot)) {
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

  // ----- deferred credential endpoint -----

  // ----- endpoints, each in its module -----

  createOffer(input: OfferInput) {
    return createOffer(this, input);
  }

  /** The `openid-credential-offer://` link of an open offer, for its QR code. */
  offerLink(offerId: string): Promise<string> {
    return offerLink(this, offerId);
  }

  fetchOffer(offerId: string): Promise<unknown> {
    return fetchOffer(this, offerId);
  }

  status(offerId: string) {
    return offerStatus(this, offerId);
  }

  /** `POST /oid4vci/offers/{id}/credentials/{n}/status` (docs/status.md). */
  changeStatus(offerId: string, n: string, body: unknown, statusToken: string | undefined) {
    return changeCredentialStatus(this, offerId, n, body, statusToken);
  }

  credential(rawBody: unknown, request: PresentedRequest, encrypted = false) {
    return credential(this, rawBody, request, encrypted);
  }

  deferredCredential(rawBody: unknown, request: PresentedRequest, encrypted = false) {
    return deferredCredential(this, rawBody, request, encrypted);
  }

  notification(body: unknown, request: PresentedRequest): Promise<void> {
    return notification(this, body, request);
  }
}
