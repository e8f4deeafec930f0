import { createHash } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, generateKeyPair, exportJWK, importJWK, type JWK } from 'jose';
import type { Clock } from '../../clock.ts';
import { generateHolderKey, type KeyPair } from '../../credentials/keys/index.ts';
import { randomToken } from '../../crypto/random.ts';
import { OAuthError, oauthError, invalidRequest } from '../../errors.ts';
import type { DeviceKey } from '../device-key.ts';
import type { ExchangeRecorder, WalletExchanges } from '../exchange.ts';
import { UpstreamError, upstreamErrorToken, type OutboundHttp } from '../outbound.ts';
import type { WalletSession } from '../sessions.ts';
import type { WalletSettings } from '../settings.ts';
import { InvalidCredential, checkCredential, heldCredential } from './credentials.ts';
import {
  checkIssuerIdentifier,
  configurationsOf,
  discoverIssuer,
  discoverOpenIdProvider,
  issuerKeys,
  wellKnown,
  type IssuerView,
} from './discovery.ts';
import { PRE_AUTHORIZED_GRANT, resolveOffer, type CredentialOffer } from './offer.ts';
import { clientAttestation, clientAttestationPop, keyAttestation, keyProofs, proofCount, proofKeys } from './proofs.ts';
import { IssuerWire, expectOk, interactionId, type WireResponse } from './wire.ts';

export interface IssuanceDeps {
  settings: WalletSettings;
  outbound: OutboundHttp;
  exchanges: WalletExchanges;
  clock: Clock;
  deviceKey: DeviceKey;
  iacaRoots: string[];
  trustedOrigins: ReadonlySet<string>;
  /** Waits between deferred polls (a real pause in service; tests move a clock). */
  wait(ms: number): Promise<void>;
}

export interface IssueBody {
  credential_configuration_id?: string;
  credential_format?: string;
  tx_code?: boolean | string;
  deferred?: boolean;
  force?: boolean;
}
export interface ImportBody {
  offer?: unknown;
  credential?: unknown;
  credential_issuer?: string;
  credential_configuration_id?: string;
  format?: string;
  discovery_url?: string;
  resource_endpoint?: string;
  scope?: string;
  tx_code?: string;
}

/** An authorization code issuance waiting for the callback (600 s, single use). */
interface PendingAuthorization {
  sessionId: string;
  view: IssuerView;
  configurationIds: string[];
  codeVerifier: string;
  redirectUri: string;
  wire: IssuerWire;
  expiresAt: number;
  app: string;
  /** The protected-resource mode: what to read with the token instead of requesting credentials. */
  resource?: ProtectedResource;
}

interface ProtectedResource {
  endpoint: string;
  scope: string;
}

const CALLBACK_TTL_MS = 600_000;
const DEFERRED_POLLS = 10;
const PKCE_METHOD = 'S256';
const b64url = (bytes: Buffer) => bytes.toString('base64url');

/** The credential issuance side of the wallet harness (spec wallet OID4VCI behaviours 1-12, decisions section 10). */
export class WalletIssuance {
  private readonly pendingAuthorizations = new Map<string, PendingAuthorization>();
  private instance?: Promise<KeyPair>;

  constructor(private readonly deps: IssuanceDeps) {}

  private nowS(): number {
    return Math.floor(this.deps.clock.now() / 1000);
  }

  /** The HAIP wallet instance key (cnf of the client attestation), one per process. */
  private instanceKey(): Promise<KeyPair> {
    this.instance ??= generateHolderKey('ES256');
    return this.instance;
  }

  /** A wire for one exchange: DPoP when the AS lists algorithms, attestation once HAIP material is on. */
  private async wire(recorder: ExchangeRecorder, asMetadata?: Record<string, any>): Promise<IssuerWire> {
    const dpop =
      Array.isArray(asMetadata?.dpop_signing_alg_values_supported) &&
      asMetadata.dpop_signing_alg_values_supported.includes('ES256')
        ? { key: await generateHolderKey('ES256'), nonces: new Map<string, string>(), nowS: () => this.nowS() }
        : undefined;
    let attestation;
    if (this.deps.settings.haipEnabled && asMetadata) {
      const instance = await this.instanceKey();
      const jwt = await clientAttestation(this.deps.settings, instance, this.nowS());
      const challengeEndpoint =
        typeof asMetadata.challenge_endpoint === 'string' ? asMetadata.challenge_endpoint : undefined;
      const bare = new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins);
      attestation = {
        attestation: jwt,
        audience: String(asMetadata.issuer),
        pop: async (audience: string) => {
          // Spec wallet behaviour 2: a fresh attestation_challenge in every PoP when the AS has a challenge endpoint.
          const challenge = challengeEndpoint
            ? expectOk(await bare.call('challenge', challengeEndpoint, { method: 'POST' }), 'The challenge endpoint')
                .json.attestation_challenge
            : undefined;
          return clientAttestationPop(
            instance,
            this.deps.settings.attestedClientId,
            audience,
            typeof challenge === 'string' ? challenge : undefined,
            this.nowS(),
          );
        },
      };
    }
    return new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins, dpop, attestation);
  }

  // ----- /api/issue -----

  async issue(session: WalletSession, body: IssueBody, app: string): Promise<Record<string, unknown>> {
    const base = this.deps.settings.issuerBaseUrl;
    const credentialIssuer = `${base}/oid4vci`;
    const recorder = await this.deps.exchanges.start('issuance', session.id, credentialIssuer);
    try {
      const plain = new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins);
      const view = await discoverIssuer(plain, credentialIssuer);
      const configurationId = this.chooseConfiguration(view, body);
      this.requireHaipMaterial(view, [configurationId]);
      const cached = [...session.credentials.values()].find(
        (c) => c.credential_configuration_id === configurationId && !c.batch_secondary,
      );
      if (cached && !body.force)
        return {
          status: 'issued',
          credential_source: 'cached',
          credential_ids: [cached.credential_id],
          active_credential_id: session.activeCredentialId,
          ...recorder.view(),
        };
      const created = expectOk(
        await plain.call('issuer_offer', `${credentialIssuer}/offers`, {
          json: {
            credential_configuration_ids: [configurationId],
            ...(body.tx_code ? { tx_code: true } : {}),
            ...(body.deferred ? { deferred: true } : {}),
          },
        }),
        'Creating an offer at the issuer',
        [201],
      ).json;
      const txCode =
        typeof body.tx_code === 'string'
          ? body.tx_code
          : typeof created.tx_code_value === 'string'
            ? created.tx_code_value
            : undefined;
      const result = await this.fromOffer(
        session,
        recorder,
        created.credential_offer ?? { credential_offer_uri: created.credential_offer_uri },
        txCode,
        app,
        view,
      );
      return {
        ...result,
        credential_source: 'issuer',
        ...(typeof created.status_uri === 'string' ? { issuer_status_uri: created.status_uri } : {}),
      };
    } catch (error) {
      await recorder.failed(errorToken(error), error instanceof InvalidCredential ? error.check : undefined);
      throw withExchanges(error, recorder);
    }
  }

  /**
   * HAIP configurations (key attestations required) need the attester material: checked as soon as the
   * metadata names the configuration, before any offer, token or PAR request is sent.
   */
  private requireHaipMaterial(view: IssuerView, configurationIds: readonly string[]): void {
    if (this.deps.settings.haipEnabled) return;
    const configurations = configurationsOf(view.metadata);
    const haip = configurationIds.find((id) => needsKeyAttestation(configurations.get(id)));
    if (haip)
      throw oauthError(
        'haip_material_required',
        `${haip} needs key attestations: configure WALLET_CLIENT_ATTESTATION_*_JWK_JSON`,
      );
  }

  /** A configuration by id, or the first of the wanted format (HAIP ones only when HAIP material is on). */
  private chooseConfiguration(view: IssuerView, body: IssueBody): string {
    const configurations = configurationsOf(view.metadata);
    if (body.credential_configuration_id !== undefined) {
      if (!configurations.has(body.credential_configuration_id))
        throw invalidRequest(`The issuer offers no configuration ${body.credential_configuration_id}`);
      return body.credential_configuration_id;
    }
    const format = body.credential_format ?? this.deps.settings.defaultCredentialFormat;
    const haip = (c: Record<string, any>) => c.proof_types_supported?.jwt?.key_attestations_required !== undefined;
    const found = [...configurations].find(
      ([, c]) => c.format === format && (this.deps.settings.haipEnabled || !haip(c)),
    );
    if (!found) throw invalidRequest(`The issuer offers no configuration of format ${format}`);
    return found[0];
  }

  // ----- /api/import -----

  async import(session: WalletSession, body: ImportBody, app: string): Promise<Record<string, unknown>> {
    const given = ['offer', 'credential', 'credential_issuer', 'discovery_url'].filter(
      (k) => (body as Record<string, unknown>)[k] !== undefined,
    );
    if (given.length !== 1)
      throw invalidRequest('Send exactly one of offer, credential, credential_issuer, discovery_url');
    const source =
      typeof body.credential_issuer === 'string'
        ? body.credential_issuer
        : typeof body.discovery_url === 'string'
          ? body.discovery_url
          : typeof body.offer === 'string'
            ? body.offer.slice(0, 200)
            : given[0];
    const recorder = await this.deps.exchanges.start('issuance', session.id, source);
    try {
      if (body.offer !== undefined) return await this.fromOffer(session, recorder, body.offer, body.tx_code, app);
      if (body.credential !== undefined) return await this.fromRawCredential(session, recorder, body);
      if (body.credential_issuer !== undefined) return await this.walletInitiated(session, recorder, body, app);
      return await this.protectedResource(session, recorder, body, app);
    } catch (error) {
      await recorder.failed(errorToken(error), error instanceof InvalidCredential ? error.check : undefined);
      throw withExchanges(error, recorder);
    }
  }

  /** An offer (pre-authorized code, or authorization code with issuer_state). */
  /** `known`: issuer metadata this exchange already fetched and checked, reused when the offer names the same issuer and no other AS. */
  private async fromOffer(
    session: WalletSession,
    recorder: ExchangeRecorder,
    input: unknown,
    txCode: string | undefined,
    app: string,
    known?: IssuerView,
  ): Promise<Record<string, unknown>> {
    const offer = await resolveOffer(new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins), input);
    const preAuthorized = offer.grants?.[PRE_AUTHORIZED_GRANT];
    if (preAuthorized?.tx_code && !txCode) {
      const error = oauthError(
        'tx_code_required',
        'This offer needs the transaction code sent to the person (tx_code)',
      );
      error.extra = { tx_code: txCodeDescription(preAuthorized.tx_code) };
      throw error;
    }
    const namedServer = preAuthorized?.authorization_server ?? offer.grants?.authorization_code?.authorization_server;
    const reusable =
      known &&
      known.credentialIssuer === offer.credential_issuer &&
      (namedServer === undefined || namedServer === known.authorizationServer);
    const discovery = reusable
      ? known
      : await discoverIssuer(
          new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins),
          offer.credential_issuer,
          namedServer,
        );
    this.requireHaipMaterial(discovery, offer.credential_configuration_ids);
    const wire = await this.wire(recorder, discovery.asMetadata);
    if (!preAuthorized)
      return this.authorize(
        session,
        wire,
        discovery,
        offer.credential_configuration_ids,
        app,
        offer.grants?.authorization_code?.issuer_state,
      );
    const token = await this.token(wire, discovery, {
      grant_type: PRE_AUTHORIZED_GRANT,
      'pre-authorized_code': preAuthorized['pre-authorized_code'],
      ...(txCode ? { tx_code: txCode } : {}),
    });
    return this.credentials(session, wire, discovery, token, offer.credential_configuration_ids, {
      anonymous: !this.deps.settings.haipEnabled,
    });
  }

  /** Behaviour 12: from an issuer id or its metadata URL, list the configurations, then authorize the chosen one. */
  private async walletInitiated(
    session: WalletSession,
    recorder: ExchangeRecorder,
    body: ImportBody,
    app: string,
  ): Promise<Record<string, unknown>> {
    let issuer = checkIssuerIdentifier(body.credential_issuer);
    const marker = '/.well-known/openid-credential-issuer';
    if (issuer.includes('/.well-known/') && !issuer.includes(marker))
      throw invalidRequest(
        'credential_issuer is an issuer identifier or its /.well-known/openid-credential-issuer URL, not authorization server metadata',
      );
    if (issuer.includes(marker)) {
      const u = new URL(issuer);
      issuer = `${u.origin}${u.pathname.replace(marker, '')}`.replace(/\/$/, '');
    }
    const view = await discoverIssuer(new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins), issuer);
    const configurations = configurationsOf(view.metadata);
    if (body.credential_configuration_id === undefined) {
      return {
        status: 'configuration_selection_required',
        credential_configurations: [...configurations].map(([id, c]) => ({
          credential_configuration_id: id,
          format: c.format,
          ...(c.vct ? { vct: c.vct } : {}),
          ...(c.doctype ? { doctype: c.doctype } : {}),
          ...(c.scope ? { scope: c.scope } : {}),
        })),
        ...recorder.view(),
      };
    }
    if (!configurations.has(body.credential_configuration_id))
      throw invalidRequest(`The issuer offers no configuration ${body.credential_configuration_id}`);
    this.requireHaipMaterial(view, [body.credential_configuration_id]);
    return this.authorize(
      session,
      await this.wire(recorder, view.asMetadata),
      view,
      [body.credential_configuration_id],
      app,
    );
  }

  /**
   * Behaviour 1: PAR with PKCE S256 (required or advertised), then an authorization URL with only
   * client_id and request_uri; the callback finishes with the same client attestation.
   */
  private async authorize(
    session: WalletSession,
    wire: IssuerWire,
    view: IssuerView,
    configurationIds: string[],
    app: string,
    issuerState?: string,
    resource?: ProtectedResource,
  ): Promise<Record<string, unknown>> {
    const as = view.asMetadata;
    if (typeof as.authorization_endpoint !== 'string')
      throw new UpstreamError('The authorization server has no authorization_endpoint');
    const codeVerifier = b64url(Buffer.from(randomToken(32)));
    const state = randomToken(16);
    const redirectUri = `${this.deps.settings.walletUrl}/api/oid4vci/callback`;
    const clientId = this.deps.settings.attestedClientId;
    const request = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: PKCE_METHOD,
      state,
      ...(resource
        ? { scope: resource.scope }
        : {
            authorization_details: JSON.stringify(
              configurationIds.map((id) => ({ type: 'openid_credential', credential_configuration_id: id })),
            ),
          }),
      ...(issuerState ? { issuer_state: issuerState } : {}),
    };
    let authorizationUrl: string;
    const usePar =
      typeof as.pushed_authorization_request_endpoint === 'string' &&
      (as.require_pushed_authorization_requests === true || as.pushed_authorization_request_endpoint);
    if (usePar) {
      const par = expectOk(
        await wire.call(
          'par',
          as.pushed_authorization_request_endpoint,
          { form: request },
          { side: 'as', attest: true, dpop: true },
        ),
        'The pushed authorization request',
        [201, 200],
      ).json;
      if (typeof par.request_uri !== 'string') throw new UpstreamError('The PAR response has no request_uri');
      authorizationUrl = `${as.authorization_endpoint}?${new URLSearchParams({ client_id: clientId, request_uri: par.request_uri })}`;
    } else {
      authorizationUrl = `${as.authorization_endpoint}?${new URLSearchParams(request)}`;
    }
    this.sweepPending();
    this.pendingAuthorizations.set(state, {
      sessionId: session.id,
      view,
      configurationIds,
      codeVerifier,
      redirectUri,
      wire,
      expiresAt: this.deps.clock.now() + CALLBACK_TTL_MS,
      app,
      ...(resource ? { resource } : {}),
    });
    return { status: 'authorization_required', authorization_url: authorizationUrl, state, ...wire.recorder.view() };
  }

  private sweepPending(): void {
    const now = this.deps.clock.now();
    for (const [state, pending] of this.pendingAuthorizations)
      if (pending.expiresAt <= now) this.pendingAuthorizations.delete(state);
  }

  /** `GET /api/oid4vci/callback`: the code is redeemed once, for the session that started it; the answer is a redirect to the app. */
  async callback(
    query: Record<string, string | undefined>,
    sessionOf: (id: string) => WalletSession | undefined,
  ): Promise<string> {
    const pending = query.state ? this.pendingAuthorizations.get(query.state) : undefined;
    const back = (status: 'success' | 'error', message: string, app = '/') =>
      `${app}?${new URLSearchParams({ oid4vci_status: status, oid4vci_message: message })}`;
    if (!pending || pending.expiresAt <= this.deps.clock.now()) return back('error', 'unknown or used state');
    this.pendingAuthorizations.delete(query.state!);
    const session = sessionOf(pending.sessionId);
    if (!session) return back('error', 'the wallet session has expired', pending.app);
    if (query.error)
      return back('error', `the authorization server answered ${String(query.error).slice(0, 64)}`, pending.app);
    if (query.iss !== undefined && query.iss !== pending.view.asMetadata.issuer)
      return back('error', 'iss is not the authorization server (RFC 9207)', pending.app);
    if (!query.code) return back('error', 'no code', pending.app);
    try {
      const token = await this.token(pending.wire, pending.view, {
        grant_type: 'authorization_code',
        code: query.code,
        redirect_uri: pending.redirectUri,
        code_verifier: pending.codeVerifier,
        client_id: this.deps.settings.attestedClientId,
      });
      if (pending.resource)
        return back(
          'success',
          `the protected resource answered HTTP ${await this.readResource(pending.wire, token, pending.resource)}`,
          pending.app,
        );
      const result = await this.credentials(session, pending.wire, pending.view, token, pending.configurationIds, {
        anonymous: false,
      });
      return back('success', `stored ${(result.credential_ids as string[]).join(', ')}`, pending.app);
    } catch (error) {
      await pending.wire.recorder.failed(
        errorToken(error),
        error instanceof InvalidCredential ? error.check : undefined,
      );
      return back('error', errorToken(error), pending.app);
    }
  }

  // ----- token, credential, deferred, notification -----

  /** The protected-resource mode's last hop: one GET with the (DPoP-bound) token, nonce retry included; 2xx or an upstream error. */
  private async readResource(
    wire: IssuerWire,
    token: Record<string, any>,
    resource: ProtectedResource,
  ): Promise<number> {
    const accessToken = { value: String(token.access_token), type: String(token.token_type ?? 'Bearer') };
    const response = await wire.call(
      'resource',
      resource.endpoint,
      { method: 'GET', accessToken, headers: { 'x-fapi-interaction-id': interactionId() } },
      { side: 'rs' },
    );
    if (response.status < 200 || response.status >= 300)
      throw new UpstreamError(
        `The protected resource answered HTTP ${response.status}`,
        response.status,
        upstreamErrorToken(Buffer.from(response.text)),
      );
    return response.status;
  }

  private async token(wire: IssuerWire, view: IssuerView, form: Record<string, string>): Promise<Record<string, any>> {
    const endpoint = view.asMetadata.token_endpoint;
    if (typeof endpoint !== 'string') throw new UpstreamError('The authorization server has no token_endpoint');
    const token = expectOk(
      await wire.call('token', endpoint, { form }, { side: 'as', attest: true, dpop: true }),
      'The token endpoint',
    ).json;
    if (typeof token.access_token !== 'string') throw new UpstreamError('The token response has no access_token');
    return token;
  }

  /** Nonce, key proofs, the credential request (encrypted when asked), deferred polling, storing, notification. */
  private async credentials(
    session: WalletSession,
    wire: IssuerWire,
    view: IssuerView,
    token: Record<string, any>,
    configurationIds: string[],
    options: { anonymous: boolean },
  ): Promise<Record<string, unknown>> {
    const accessToken = { value: String(token.access_token), type: String(token.token_type ?? 'Bearer') };
    const jwks = await issuerKeys(wire, view);
    const identifiers = credentialIdentifiers(token);
    const stored: string[] = [];
    for (const configurationId of configurationIds) {
      const configuration = configurationsOf(view.metadata).get(configurationId);
      if (!configuration) throw new UpstreamError(`The issuer metadata has no configuration ${configurationId}`);
      const format = String(configuration.format);
      const nonce =
        typeof view.metadata.nonce_endpoint === 'string'
          ? expectOk(await wire.call('nonce', view.metadata.nonce_endpoint, { method: 'POST' }), 'The nonce endpoint')
              .json.c_nonce
          : undefined;
      const primary = format === 'mso_mdoc' ? this.deps.deviceKey.pair : session.holder;
      const keys = await proofKeys(primary, proofCount(view.metadata));
      const attestationNeeded = needsKeyAttestation(configuration);
      this.requireHaipMaterial(view, [configurationId]);
      const attestation = attestationNeeded
        ? await keyAttestation(this.deps.settings, keys, typeof nonce === 'string' ? nonce : undefined, this.nowS())
        : undefined;
      const proofs = await keyProofs({
        keys,
        audience: view.credentialIssuer,
        nonce: typeof nonce === 'string' ? nonce : undefined,
        clientId: options.anonymous ? undefined : this.deps.settings.attestedClientId,
        keyAttestation: attestation,
        nowS: this.nowS(),
        recorder: wire.recorder,
      });
      const identifier = identifiers.get(configurationId);
      const request: Record<string, unknown> = {
        ...(identifier ? { credential_identifier: identifier } : { credential_configuration_id: configurationId }),
        proofs: { jwt: proofs },
      };
      const encryption = await this.encryption(view);
      if (encryption.response)
        request.credential_response_encryption = { jwk: encryption.response.publicJwk, enc: encryption.response.enc };
      let response = await this.credentialRequest(
        wire,
        view.metadata.credential_endpoint,
        request,
        accessToken,
        encryption,
        'credential',
      );
      let polls = 0;
      while (response.status === 202) {
        if (++polls > DEFERRED_POLLS || typeof view.metadata.deferred_credential_endpoint !== 'string')
          throw new UpstreamError('The deferred credential was not ready in time');
        const interval = Number(response.body.interval);
        await this.deps.wait((Number.isFinite(interval) && interval > 0 ? Math.min(interval, 60) : 5) * 1000);
        response = await this.credentialRequest(
          wire,
          view.metadata.deferred_credential_endpoint,
          {
            transaction_id: response.body.transaction_id,
            ...(request.credential_response_encryption
              ? { credential_response_encryption: request.credential_response_encryption }
              : {}),
          },
          accessToken,
          encryption,
          'deferred',
        );
      }
      const credentials = Array.isArray(response.body.credentials) ? response.body.credentials : [];
      if (credentials.length === 0) throw new UpstreamError('The credential response carries no credentials');
      stored.push(
        ...(await this.store(
          session,
          wire.recorder,
          credentials.map((c: { credential?: unknown }) => c?.credential),
          keys,
          { format, configurationId, view, jwks },
        )),
      );
      if (
        typeof response.body.notification_id === 'string' &&
        typeof view.metadata.notification_endpoint === 'string'
      ) {
        const notified = await wire.call(
          'notification',
          view.metadata.notification_endpoint,
          {
            json: { notification_id: response.body.notification_id, event: 'credential_accepted' },
            accessToken,
            headers: { 'x-fapi-interaction-id': interactionId() },
          },
          { side: 'rs' },
        );
        if (notified.status !== 204)
          throw new UpstreamError(
            `The notification endpoint answered HTTP ${notified.status}, not 204`,
            notified.status,
          );
      }
    }
    return {
      status: 'issued',
      credential_ids: stored,
      active_credential_id: session.activeCredentialId,
      credential_source: 'offer',
      ...wire.recorder.view(),
    };
  }

  /** Behaviours 6 and 7: encrypt the request when the issuer requires it; ask for an encrypted response when required or on the HAIP path. */
  private async encryption(view: IssuerView): Promise<{
    request?: { jwk: JWK; enc: string };
    response?: { publicJwk: JWK; privateKey: CryptoKey; enc: string };
  }> {
    const requestEnc = view.metadata.credential_request_encryption;
    const responseEnc = view.metadata.credential_response_encryption;
    const pickEnc = (values: unknown) => (Array.isArray(values) && values.includes('A256GCM') ? 'A256GCM' : 'A128GCM');
    const out: {
      request?: { jwk: JWK; enc: string };
      response?: { publicJwk: JWK; privateKey: CryptoKey; enc: string };
    } = {};
    if (requestEnc?.encryption_required === true) {
      const jwk = (Array.isArray(requestEnc.jwks?.keys) ? requestEnc.jwks.keys : []).find(
        (k: JWK) => k && (k.alg === 'ECDH-ES' || k.use === 'enc'),
      );
      if (!jwk) throw new UpstreamError('The issuer requires encrypted requests but publishes no ECDH-ES key');
      out.request = { jwk, enc: pickEnc(requestEnc.enc_values_supported) };
    }
    if (responseEnc && (responseEnc.encryption_required === true || (this.deps.settings.haipEnabled && out.request))) {
      const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
      out.response = {
        publicJwk: { ...(await exportJWK(publicKey)), alg: 'ECDH-ES', use: 'enc' },
        privateKey: privateKey as CryptoKey,
        enc: pickEnc(responseEnc.enc_values_supported),
      };
    }
    return out;
  }

  private async credentialRequest(
    wire: IssuerWire,
    endpoint: string,
    body: Record<string, unknown>,
    accessToken: { value: string; type: string },
    encryption: Awaited<ReturnType<WalletIssuance['encryption']>>,
    step: 'credential' | 'deferred',
  ): Promise<{ status: number; body: Record<string, any> }> {
    let jwe: string | undefined;
    if (encryption.request) {
      jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(body)))
        .setProtectedHeader({
          alg: 'ECDH-ES',
          enc: encryption.request.enc as 'A128GCM',
          ...(encryption.request.jwk.kid ? { kid: encryption.request.jwk.kid } : {}),
        })
        .encrypt(await importJWK(encryption.request.jwk, 'ECDH-ES'));
    }
    const response: WireResponse = await wire.call(
      step,
      endpoint,
      jwe ? { jwe, accessToken } : { json: body, accessToken },
      { side: 'rs' },
    );
    if (response.status !== 200 && response.status !== 202)
      expectOk(response, step === 'credential' ? 'The credential endpoint' : 'The deferred credential endpoint');
    if (/application\/jwt/.test(response.headers['content-type'] ?? '')) {
      if (!encryption.response)
        throw new UpstreamError('The issuer encrypted a response the wallet did not ask to be encrypted');
      try {
        const { plaintext } = await compactDecrypt(response.text.trim(), encryption.response.privateKey, {
          keyManagementAlgorithms: ['ECDH-ES'],
        });
        return {
          status: response.status,
          body: JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, any>,
        };
      } catch {
        throw new UpstreamError('The encrypted credential response does not decrypt with the wallet key');
      }
    }
    if (!response.json) throw new UpstreamError(`The ${step} endpoint did not answer JSON`, response.status);
    return { status: response.status, body: response.json };
  }

  /**
   * Behaviour 5: credentials are matched to proof keys by their binding, not array order; the one bound
   * to the holder (or device) key is active, the others are batch secondaries (mdoc ones never activated).
   */
  private async store(
    session: WalletSession,
    recorder: ExchangeRecorder,
    credentials: unknown[],
    keys: KeyPair[],
    input: {
      format: string;
      configurationId?: string;
      view?: IssuerView;
      jwks: { keys: JWK[] };
      credentialIssuer?: string;
    },
  ): Promise<string[]> {
    const byThumbprint = new Map(keys.map((k) => [k.kid, k]));
    const credentialIssuer = input.view?.credentialIssuer ?? input.credentialIssuer;
    const ids: string[] = [];
    for (const credential of credentials) {
      const checked = await checkCredential(input.format, credential, {
        credentialIssuer: credentialIssuer ?? '',
        issuerJwks: input.jwks,
        iacaRoots: this.deps.iacaRoots,
        nowS: this.nowS(),
      });
      const key = checked.holderKeyThumbprint ? byThumbprint.get(checked.holderKeyThumbprint) : undefined;
      if (!key) throw new InvalidCredential('holder_binding', 'the credential is not bound to a key the wallet proved');
      const primary = key === keys[0];
      const id = `cred_${randomToken(9)}`;
      session.credentials.set(
        id,
        heldCredential(id, checked, {
          configurationId: input.configurationId,
          credentialIssuer,
          batchSecondary: !primary,
        }),
      );
      if (primary) session.activeCredentialId = id;
      else session.batchKeys.set(key.kid, key);
      await recorder.stored(id, checked.format, checked.holderKeyThumbprint, !primary);
      ids.push(id);
    }
    return ids;
  }

  /** A raw credential, checked like an issued one (its issuer's keys from the issuer metadata's jwks_uri). */
  private async fromRawCredential(
    session: WalletSession,
    recorder: ExchangeRecorder,
    body: ImportBody,
  ): Promise<Record<string, unknown>> {
    const format = body.format ?? guessFormat(body.credential);
    const wire = new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins);
    let jwks: { keys: JWK[] } = { keys: [] };
    let credentialIssuer: string | undefined;
    if (format === 'dc+sd-jwt' || format === 'jwt_vc_json' || format === 'jwt_vc_json-ld') {
      credentialIssuer = issuerOfJwt(String(body.credential));
      if (credentialIssuer && /^https?:\/\//.test(credentialIssuer))
        jwks = await issuerKeys(wire, await discoverIssuer(wire, credentialIssuer));
    }
    const holderKeys = [format === 'mso_mdoc' ? this.deps.deviceKey.pair : session.holder];
    const ids = await this.store(session, recorder, [body.credential], holderKeys, { format, jwks, credentialIssuer });
    return {
      status: 'issued',
      credential_ids: ids,
      active_credential_id: session.activeCredentialId,
      credential_source: 'import',
      ...recorder.view(),
    };
  }

  /** The protected-resource mode (FAPI 2.0 discovery): needs HAIP material; discovery is checked before anything else. */
  private async protectedResource(
    session: WalletSession,
    recorder: ExchangeRecorder,
    body: ImportBody,
    app: string,
  ): Promise<Record<string, unknown>> {
    if (!this.deps.settings.haipEnabled)
      throw oauthError(
        'haip_material_required',
        'discovery_url needs the HAIP attester material (WALLET_CLIENT_ATTESTATION_*_JWK_JSON)',
      );
    if (
      typeof body.resource_endpoint !== 'string' ||
      typeof body.scope !== 'string' ||
      !/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(body.scope)
    )
      throw invalidRequest(
        'discovery_url goes with resource_endpoint (an http(s) URL) and scope (RFC 6749 scope tokens)',
      );
    const endpoint = checkIssuerIdentifier(body.resource_endpoint, 'resource_endpoint');
    const plain = new IssuerWire(this.deps.outbound, recorder, this.deps.trustedOrigins);
    const { issuer, metadata } = await discoverOpenIdProvider(plain, String(body.discovery_url));
    const wire = await this.wire(recorder, metadata);
    const view: IssuerView = {
      credentialIssuer: issuer,
      metadata: {},
      authorizationServer: issuer,
      asMetadata: metadata,
    };
    return this.authorize(session, wire, view, [], app, undefined, { endpoint, scope: body.scope });
  }
}

/** `authorization_details[].credential_identifiers` of a token response, by configuration (behaviour 8). */
function credentialIdentifiers(token: Record<string, any>): Map<string, string> {
  const out = new Map<string, string>();
  for (const detail of Array.isArray(token.authorization_details) ? token.authorization_details : []) {
    const id = detail?.credential_identifiers?.[0];
    if (typeof detail?.credential_configuration_id === 'string' && typeof id === 'string')
      out.set(detail.credential_configuration_id, id);
  }
  return out;
}

function guessFormat(credential: unknown): string {
  if (credential && typeof credential === 'object') return 'ldp_vc';
  const text = String(credential);
  if (text.includes('~')) return 'dc+sd-jwt';
  if (text.split('.').length === 3) return 'jwt_vc_json';
  return 'mso_mdoc';
}

function issuerOfJwt(jwt: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('~')[0].split('.')[1], 'base64url').toString('utf8')) as {
      iss?: unknown;
    };
    return typeof payload.iss === 'string' ? payload.iss : undefined;
  } catch {
    return undefined;
  }
}

/** The offer's tx_code object as the caller may see it: only its typed members (the offer may come from any issuer). */
function txCodeDescription(value: unknown): Record<string, unknown> {
  const t = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return {
    ...(Number.isInteger(t.length) && (t.length as number) > 0 && (t.length as number) < 100
      ? { length: t.length }
      : {}),
    ...(t.input_mode === 'numeric' || t.input_mode === 'text' ? { input_mode: t.input_mode } : {}),
    ...(typeof t.description === 'string' ? { description: t.description.slice(0, 300) } : {}),
  };
}

/** A configuration whose JWT proofs must carry key attestations (HAIP). */
const needsKeyAttestation = (configuration: Record<string, any> | undefined) =>
  configuration?.proof_types_supported?.jwt?.key_attestations_required !== undefined;

const errorToken = (error: unknown) => (error instanceof OAuthError ? error.error : 'server_error');

/** The caller still sees the hops of a failed exchange: step, method, URL and status, never upstream bytes. */
function withExchanges(error: unknown, recorder: ExchangeRecorder): unknown {
  if (error instanceof OAuthError) error.extra = { ...error.extra, ...recorder.failureView() };
  return error;
}

export { wellKnown, type CredentialOffer };
