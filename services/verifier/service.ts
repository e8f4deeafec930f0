import { createHmac, type KeyObject } from 'node:crypto';
import {
  type PresentationCheck,
  presentationMachine,
  type ClientIdPrefix,
  type DisclosedPresentation,
  type PresentationEvent,
  type PresentationReason,
  type ResponseMode,
} from '../../machines/presentation.ts';
import { ActorRuntime, type Loaded } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import type { StatusChecker } from '../status/check.ts';
import { randomToken, timeOrderedToken } from '../crypto/random.ts';
import { invalidRequest, oauthError } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import type { KeyRing } from '../keys.ts';
import type { KeptDecryptionKey, VerifierCore } from './core.ts';
import { clientIdOf, ephemeralEncryptionKey, sanDnsPossible, signRequestObject } from './request-object.ts';
import { receiveResponse } from './response.ts';
import { handoffLink, linksOf } from './handoff.ts';
import { createDcApiRequest, dcApiView, receiveDcApiResponse } from './dc-api.ts';
import { checkedTransactionData } from './transaction-data-rule.ts';
import { presentationResult } from './result.ts';
import {
  applyProfile,
  checkedDcqlQuery,
  checkedEncValues,
  ENC_KID_SUFFIX,
  hashOf,
  invalidRequestUri,
  REQUEST_ID,
} from './rules.ts';
import { methodAllowed, presentationStates } from '../../machines/presentation.ts';
import {
  CLIENT_ID_PREFIXES,
  REQUEST_TTL_S,
  RESPONSE_MODES,
  type CredentialTrust,
  type VerifierPki,
  type VerifierSettings,
} from './settings.ts';

export interface CreateRequestInput {
  client_id_prefix?: string;
  response_mode?: string;
  dcql_query?: unknown;
  request_uri_method?: string;
  encrypted_response_enc_values_supported?: string[];
  profile?: string;
  transaction_data?: unknown;
  /** dc_api and dc_api.jwt: the origins the answer may come through (default: BASE_URL's). */
  expected_origins?: unknown;
}

/** A response as posted to `/oid4vp/response` (form members, all optional until checked). */
export interface ResponseInput {
  vp_token?: unknown;
  state?: unknown;
  response?: unknown;
  error?: unknown;
  error_description?: unknown;
}

export interface ResultDocument {
  request_id: string;
  status: 'created' | 'fetched' | 'verified' | 'rejected' | 'wallet_error' | 'expired';
  enc?: string;
  /** A Digital Credentials API answer's origin (the audience it was bound to). */
  origin?: string;
  reasons: PresentationReason[];
  /** Every check run on the answer with its verdict, passed ones included. */
  checks?: PresentationCheck[];
  /** Without the answer's response_code (when it produced one), each presentation shows no claims. */
  presentations?: Record<string, DisclosedPresentation[] | Array<Omit<DisclosedPresentation, 'claims'>>>;
  /** True when claims were held back because the answer's response_code was not given. */
  response_code_required?: boolean;
  wallet_error?: { error: string; error_description?: string };
}

/**
 * The OID4VP verifier (decisions section 9): presentation requests, request objects, the response
 * endpoint and the result document, each request a `presentation:<request_id>` stream. Ephemeral
 * decryption keys live only in memory.
 */
export class VerifierService implements VerifierCore {
  readonly requests: ActorRuntime<typeof presentationMachine>;
  /** direct_post.jwt decryption keys by request id, until the request lapses. */
  readonly decryptionKeys = new Map<string, KeptDecryptionKey>();
  private readonly stateSecret: Uint8Array;

  constructor(
    log: EventLog,
    readonly keys: KeyRing,
    readonly pki: VerifierPki,
    readonly settings: VerifierSettings,
    readonly trust: CredentialTrust,
    readonly clock: Clock,
    readonly status: StatusChecker,
  ) {
    // Presentation streams hold a handful of events: folding them beats writing snapshots.
    this.requests = ActorRuntime.of(log, presentationMachine, 'presentation', 10_000, false);
    this.stateSecret = keys.secret('oid4vp-state');
  }

  /** `state` is `<request_id>.<HMAC>`: derivable again when the request object is signed, never stored in clear. */
  stateOf(id: string): string {
    return `${id}.${createHmac('sha256', this.stateSecret).update(`state:${id}`).digest('base64url')}`;
  }

  // ----- creation -----

  async createRequest(input: CreateRequestInput) {
    if (input.response_mode === 'dc_api' || input.response_mode === 'dc_api.jwt') return this.createDcApiRequest(input);
    if (input.expected_origins !== undefined)
      throw invalidRequest('expected_origins belongs to the Digital Credentials API modes (dc_api, dc_api.jwt)');
    const { prefix, mode } = applyProfile(input);
    if (!CLIENT_ID_PREFIXES.includes(prefix as ClientIdPrefix))
      throw invalidRequest(`client_id_prefix must be one of ${CLIENT_ID_PREFIXES.join(', ')}`);
    if (!RESPONSE_MODES.includes(mode as ResponseMode))
      throw invalidRequest(`response_mode must be one of ${RESPONSE_MODES.join(', ')}`);
    const method = input.request_uri_method ?? 'get';
    if (method !== 'get' && method !== 'post') throw invalidRequest('request_uri_method must be get or post');
    if (prefix === 'x509_san_dns' && !sanDnsPossible(this.settings.baseUrl))
      throw invalidRequest('x509_san_dns needs a DNS host name; BASE_URL is on an IP address');
    const encValues = checkedEncValues(input.encrypted_response_enc_values_supported);
    const dcqlQuery = checkedDcqlQuery(input.dcql_query);
    const transactionData = checkedTransactionData(input.transaction_data, dcqlQuery);

    const at = this.clock.now();
    const id = timeOrderedToken(at, 12);
    const expiresAt = at + REQUEST_TTL_S * 1000;
    const encrypted = mode === 'direct_post.jwt';
    const encryption = encrypted ? ephemeralEncryptionKey(`${id}${ENC_KID_SUFFIX}`) : undefined;
    const byReference = prefix !== 'redirect_uri';
    const clientId = clientIdOf(prefix as ClientIdPrefix, this.settings, this.pki, this.keys);
    const nonce = randomToken(24);
    const state = this.stateOf(id);
    const transactionId = `${id}.${randomToken(16)}`;
    const event: PresentationEvent = {
      type: 'presentation.created',
      at,
      client_id: clientId,
      client_id_prefix: prefix as ClientIdPrefix,
      response_mode: mode as ResponseMode,
      ...(byReference ? { request_uri_method: method as 'get' | 'post' } : {}),
      nonce,
      state_hash: hashOf(state),
      transaction_id_hash: hashOf(transactionId),
      dcql_query: dcqlQuery,
      ...(transactionData ? { transaction_data: transactionData } : {}),
      expires_at: expiresAt,
      ...(input.profile === 'haip' ? { profile: 'haip' as const } : {}),
      ...(encryption
        ? { enc_values: [...new Set(encValues)], enc_jwk: encryption.publicJwk as Record<string, unknown> }
        : {}),
    };
    const outcome = await this.requests.create(id, event);
    if (!outcome.accepted) throw oauthError('temporarily_unavailable', 'The request could not be created; try again');
    // HAIP answers redirect to the result: its transaction id is kept, like the key, in memory until the request lapses.
    if (encryption)
      this.keepDecryptionKey(id, {
        privateKey: encryption.privateKey,
        expiresAt,
        ...(input.profile === 'haip' ? { transactionId } : {}),
      });

    const requestUri = `${this.settings.baseUrl}/oid4vp/request/${id}`;
    const links = linksOf(this, id, outcome.snapshot.context);
    return {
      request_id: id,
      transaction_id: transactionId,
      client_id: clientId,
      authorization_request_uri: links.openid4vp,
      ...(links.haip ? { haip_authorization_request_uri: links.haip } : {}),
      ...(byReference ? { request_uri: requestUri, request_uri_method: method } : {}),
      response_mode: mode,
      response_uri: this.settings.responseUri,
      nonce,
      state,
      dcql_query: dcqlQuery,
      ...(transactionData ? { transaction_data: transactionData } : {}),
      expires_in: REQUEST_TTL_S,
      result_uri: this.resultUri(transactionId),
      ...(input.profile === 'haip' ? { profile: 'haip' } : {}),
    };
  }

  /** The Digital Credentials API modes (OpenID4VP 1.0 Appendix A), in their module. */
  private createDcApiRequest(input: CreateRequestInput) {
    if (input.profile !== undefined) throw invalidRequest('the haip profile uses direct_post.jwt, not the DC API');
    if (input.request_uri_method !== undefined)
      throw invalidRequest('DC API requests are handed to the browser, never fetched: no request_uri_method');
    const encValues = checkedEncValues(input.encrypted_response_enc_values_supported);
    const dcqlQuery = checkedDcqlQuery(input.dcql_query);
    return createDcApiRequest(this, {
      mode: input.response_mode as 'dc_api' | 'dc_api.jwt',
      ...(input.client_id_prefix !== undefined ? { clientIdPrefix: input.client_id_prefix } : {}),
      expectedOrigins: input.expected_origins,
      dcqlQuery,
      transactionData: checkedTransactionData(input.transaction_data, dcqlQuery),
      encValues,
    });
  }

  /** The handoff link of a request that can still be answered (a QR code's content), in its module. */
  handoffLink(id: string): Promise<string> {
    return handoffLink(this, id);
  }

  resultUri(transactionId: string): string {
    return `${this.settings.baseUrl}/oid4vp/result/${transactionId}`;
  }

  keepDecryptionKey(id: string, kept: { privateKey: KeyObject; expiresAt: number; transactionId?: string }): void {
    const now = this.clock.now();
    // Keys are kept in creation order: lapsed ones are dropped from the front.
    for (const [key, value] of this.decryptionKeys) {
      if (value.expiresAt > now) break;
      this.decryptionKeys.delete(key);
    }
    this.decryptionKeys.set(id, kept);
  }

  /** The request as it stands, with a lapsed unanswered request marked expired first. */
  async current(id: string): Promise<Loaded<typeof presentationMachine>> {
    const loaded = await this.requests.get(id);
    if (presentationStates.unanswered(loaded.snapshot) && this.clock.now() >= loaded.snapshot.context.expiresAt) {
      const outcome = await this.requests.execute(id, { type: 'presentation.expired', at: this.clock.now() });
      return outcome;
    }
    return loaded;
  }

  // ----- request objects -----

  /** `GET|POST /oid4vp/request/{id}`: the signed request object, by the method the request was created for. */
  async requestObject(id: string, method: 'get' | 'post', walletNonce?: string): Promise<string> {
    if (!REQUEST_ID.test(id)) throw oauthError('invalid_request_uri:unknown', 'No such request');
    const loaded = await this.current(id);
    if (!presentationStates.created(loaded.snapshot) || loaded.snapshot.context.requestUriMethod === undefined)
      throw oauthError('invalid_request_uri:unknown', 'No such request');
    const allowed = loaded.snapshot.context.requestUriMethod.toUpperCase();
    if (!methodAllowed(loaded.snapshot.context.requestUriMethod, method))
      throw oauthError('invalid_request:method_not_allowed', `This request object is fetched with ${allowed}`, {
        allow: allowed,
      });
    if (presentationStates.expired(loaded.snapshot)) throw invalidRequestUri('The request has expired');
    if (!presentationStates.unanswered(loaded.snapshot))
      throw invalidRequestUri('The request has already been answered');
    const at = this.clock.now();
    const outcome = await this.requests.execute(id, {
      type: 'presentation.request_fetched',
      at,
      method,
      ...(walletNonce !== undefined ? { wallet_nonce: walletNonce } : {}),
    });
    if (!outcome.accepted) throw invalidRequestUri('The request can no longer be fetched');
    return signRequestObject({
      id,
      state: outcome.snapshot.context,
      stateValue: this.stateOf(id),
      walletNonce,
      settings: this.settings,
      pki: this.pki,
      keys: this.keys,
      nowS: Math.floor(at / 1000),
    });
  }

  // ----- the response endpoint -----

  // ----- results -----

  // ----- the response and result endpoints, each in its module -----

  receiveResponse(input: ResponseInput): Promise<Record<string, unknown>> {
    return receiveResponse(this, input);
  }

  receiveDcApiResponse(transactionId: string, body: { origin?: unknown; data?: unknown }) {
    return receiveDcApiResponse(this, transactionId, body);
  }

  dcApiView(transactionId: string) {
    return dcApiView(this, transactionId);
  }

  result(transactionId: string, responseCode?: string): Promise<ResultDocument> {
    return presentationResult(this, transactionId, responseCode);
  }
}
