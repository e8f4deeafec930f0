import { createHmac, type KeyObject } from 'node:crypto';
import { compactDecrypt, type JWK } from 'jose';
import { decodeJwtHeader } from '../crypto/decode-jwt.ts';
import {
  presentationMachine,
  type ClientIdPrefix,
  type DisclosedPresentation,
  type PresentationContext as RequestState,
  type PresentationEvent,
  type PresentationReason,
  type ResponseMode,
} from '../../machines/presentation.ts';
import { ActorRuntime, type Loaded } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { DcqlQueryError, validateDcqlQuery } from '../credentials/dcql/validate.ts';
import type { CredentialQuery, DcqlQuery, StoredCredential } from '../credentials/dcql/types.ts';
import { sameText } from '../crypto/compare.ts';
import { randomToken, sha256, timeOrderedToken } from '../crypto/random.ts';
import { oauthError, invalidRequest, notFound } from '../errors.ts';
import type { EventLog } from '../event-log.ts';
import type { KeyRing } from '../keys.ts';
import { dcqlReasons } from './dcql-verdict.ts';
import { checkPresentation, type Presented } from './presentations.ts';
import {
  byValueQuery,
  clientIdOf,
  ephemeralEncryptionKey,
  sanDnsPossible,
  signRequestObject,
} from './request-object.ts';
import {
  CLIENT_ID_PREFIXES,
  CONTENT_ENCRYPTIONS,
  DEFAULT_DCQL_QUERY,
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
  reasons: PresentationReason[];
  /** Without the answer's response_code (when it produced one), each presentation shows no claims. */
  presentations?: Record<string, DisclosedPresentation[] | Array<Omit<DisclosedPresentation, 'claims'>>>;
  /** True when claims were held back because the answer's response_code was not given. */
  response_code_required?: boolean;
  wallet_error?: { error: string; error_description?: string };
}

/**
 * Request ids sort by creation time (8 characters) and carry 96 random bits (16 more): the id is
 * what a result document is fetched by, and a presentation stream's log rows written together stay
 * together in the log's index.
 */
const REQUEST_ID_LENGTH = 24;
const REQUEST_ID = new RegExp(`^[A-Za-z0-9_-]{${REQUEST_ID_LENGTH}}$`);
const STATE = new RegExp(`^[A-Za-z0-9_-]{${REQUEST_ID_LENGTH}}\\.[A-Za-z0-9_-]{43}$`);
/**
 * The capability a result is read by: the request id (to find the stream), then 128 random bits, of
 * which the log keeps only a SHA-256. The request id travels in request URIs and QR codes; this never does.
 */
const TRANSACTION_ID = new RegExp(`^([A-Za-z0-9_-]{${REQUEST_ID_LENGTH}})\\.[A-Za-z0-9_-]{22}$`);
const ENC_KID_SUFFIX = '.enc';
const FORMATS = new Set(['dc+sd-jwt', 'vc+sd-jwt', 'mso_mdoc', 'jwt_vc_json', 'jwt_vc_json-ld', 'ldp_vc']);
/** A wallet's error code and description are short ASCII (RFC 6749 §4.1.2.1 character set). */
const ERROR_CODE = /^[\x20-\x21\x23-\x5B\x5D-\x7E]{1,100}$/;

const hashOf = (value: string) => sha256(value);
const invalidRequestUri = (description: string) => oauthError('invalid_request_uri', description);

/** The request id a `state` value names (`<request_id>.<mac>`), so no lookup table is needed. */
const requestIdOfState = (state: unknown) =>
  typeof state === 'string' && STATE.test(state) ? state.slice(0, REQUEST_ID_LENGTH) : undefined;

/** The profile rule (HAIP 1.0): `haip` means x509_hash + direct_post.jwt; an explicit other choice conflicts. */
function applyProfile(input: CreateRequestInput): { prefix: string; mode: string } {
  if (input.profile === undefined)
    return { prefix: input.client_id_prefix ?? 'redirect_uri', mode: input.response_mode ?? 'direct_post' };
  if (input.profile !== 'haip') throw invalidRequest('profile must be "haip" when present');
  if (
    (input.client_id_prefix ?? 'x509_hash') !== 'x509_hash' ||
    (input.response_mode ?? 'direct_post.jwt') !== 'direct_post.jwt'
  ) {
    throw invalidRequest('the haip profile needs client_id_prefix x509_hash and response_mode direct_post.jwt');
  }
  return { prefix: 'x509_hash', mode: 'direct_post.jwt' };
}

/** The DCQL rule of request creation: a valid query of formats this verifier can check. */
function checkedDcqlQuery(value: unknown): DcqlQuery {
  if (value === undefined) return DEFAULT_DCQL_QUERY;
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw invalidRequest('dcql_query must be a JSON object');
  const query = value as DcqlQuery;
  try {
    validateDcqlQuery(query);
  } catch (error) {
    if (error instanceof DcqlQueryError) throw invalidRequest(`dcql_query: ${error.message}`);
    throw invalidRequest('dcql_query is malformed');
  }
  const unknown = query.credentials.find((c) => !FORMATS.has(c.format));
  if (unknown)
    throw invalidRequest(
      `dcql_query: credential query ${unknown.id} asks for the format ${unknown.format}, which this verifier does not verify`,
    );
  return query;
}

/** The vp_token rule: a JSON object keyed by credential query id, each value a non-empty array (one item unless `multiple`). */
function parseVpToken(
  value: unknown,
  queries: ReadonlyMap<string, CredentialQuery>,
): Map<string, unknown[]> | PresentationReason {
  let token = value;
  if (typeof token === 'string') {
    try {
      token = JSON.parse(token);
    } catch {
      return { check: 'vp_token', reason: 'vp_token is not JSON' };
    }
  }
  if (!token || typeof token !== 'object' || Array.isArray(token))
    return { check: 'vp_token', reason: 'vp_token must be a JSON object keyed by credential query id' };
  const answers = new Map<string, unknown[]>();
  for (const [id, presentations] of Object.entries(token)) {
    const query = queries.get(id);
    if (!query)
      return {
        check: 'vp_token',
        reason: `vp_token answers ${JSON.stringify(id.slice(0, 64))}, which is not a credential query of the request`,
      };
    if (!Array.isArray(presentations) || presentations.length === 0)
      return {
        credential_query_id: id,
        check: 'vp_token',
        reason: 'each vp_token value must be a non-empty array of presentations',
      };
    if (presentations.length > 1 && query.multiple !== true)
      return {
        credential_query_id: id,
        check: 'vp_token',
        reason: 'this credential query does not allow multiple presentations',
      };
    answers.set(id, presentations);
  }
  return answers;
}

/**
 * The OID4VP verifier (decisions section 9): presentation requests, request objects, the response
 * endpoint and the result document, each request a `presentation:<request_id>` stream. Ephemeral
 * decryption keys live only in memory.
 */
export class VerifierService {
  readonly requests: ActorRuntime<typeof presentationMachine>;
  /** direct_post.jwt decryption keys by request id, until the request lapses. */
  private readonly decryptionKeys = new Map<
    string,
    { privateKey: KeyObject; expiresAt: number; transactionId?: string }
  >();
  private readonly stateSecret: Uint8Array;

  constructor(
    log: EventLog,
    private readonly keys: KeyRing,
    readonly pki: VerifierPki,
    readonly settings: VerifierSettings,
    private readonly trust: CredentialTrust,
    readonly clock: Clock,
  ) {
    // Presentation streams hold a handful of events: folding them beats writing snapshots.
    this.requests = new ActorRuntime(log, presentationMachine, 'presentation', 10_000, false);
    this.stateSecret = keys.secret('oid4vp-state');
  }

  /** `state` is `<request_id>.<HMAC>`: derivable again when the request object is signed, never stored in clear. */
  private stateOf(id: string): string {
    return `${id}.${createHmac('sha256', this.stateSecret).update(`state:${id}`).digest('base64url')}`;
  }

  // ----- creation -----

  async createRequest(input: CreateRequestInput) {
    const { prefix, mode } = applyProfile(input);
    if (!CLIENT_ID_PREFIXES.includes(prefix as ClientIdPrefix))
      throw invalidRequest(`client_id_prefix must be one of ${CLIENT_ID_PREFIXES.join(', ')}`);
    if (!RESPONSE_MODES.includes(mode as ResponseMode))
      throw invalidRequest(`response_mode must be one of ${RESPONSE_MODES.join(', ')}`);
    const method = input.request_uri_method ?? 'get';
    if (method !== 'get' && method !== 'post') throw invalidRequest('request_uri_method must be get or post');
    if (prefix === 'x509_san_dns' && !sanDnsPossible(this.settings.baseUrl))
      throw invalidRequest('x509_san_dns needs a DNS host name; BASE_URL is on an IP address');
    const encValues = input.encrypted_response_enc_values_supported ?? ['A128GCM'];
    if (
      !Array.isArray(encValues) ||
      encValues.length === 0 ||
      encValues.some((e) => !(CONTENT_ENCRYPTIONS as readonly string[]).includes(e))
    )
      throw invalidRequest(`encrypted_response_enc_values_supported must list ${CONTENT_ENCRYPTIONS.join(' and/or ')}`);
    const dcqlQuery = checkedDcqlQuery(input.dcql_query);

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
    const query = byReference
      ? new URLSearchParams({
          client_id: clientId,
          request_uri: requestUri,
          ...(method === 'post' ? { request_uri_method: 'post' } : {}),
        }).toString()
      : byValueQuery(id, outcome.snapshot.context, state, this.settings);
    return {
      request_id: id,
      transaction_id: transactionId,
      client_id: clientId,
      authorization_request_uri: `openid4vp://?${query}`,
      ...(byReference ? { request_uri: requestUri, request_uri_method: method } : {}),
      response_mode: mode,
      response_uri: this.settings.responseUri,
      nonce,
      state,
      dcql_query: dcqlQuery,
      expires_in: REQUEST_TTL_S,
      result_uri: this.resultUri(transactionId),
      ...(input.profile === 'haip' ? { profile: 'haip' } : {}),
    };
  }

  private resultUri(transactionId: string): string {
    return `${this.settings.baseUrl}/oid4vp/result/${transactionId}`;
  }

  private keepDecryptionKey(
    id: string,
    kept: { privateKey: KeyObject; expiresAt: number; transactionId?: string },
  ): void {
    const now = this.clock.now();
    // Keys are kept in creation order: lapsed ones are dropped from the front.
    for (const [key, value] of this.decryptionKeys) {
      if (value.expiresAt > now) break;
      this.decryptionKeys.delete(key);
    }
    this.decryptionKeys.set(id, kept);
  }

  /** The request as it stands, with a lapsed unanswered request marked expired first. */
  private async current(id: string): Promise<Loaded<typeof presentationMachine>> {
    const loaded = await this.requests.get(id);
    const status = loaded.snapshot.value;
    if ((status === 'created' || status === 'fetched') && this.clock.now() >= loaded.snapshot.context.expiresAt) {
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
    const status = loaded.snapshot.value as string;
    if (status === 'new' || loaded.snapshot.context.requestUriMethod === undefined)
      throw oauthError('invalid_request_uri:unknown', 'No such request');
    const allowed = loaded.snapshot.context.requestUriMethod.toUpperCase();
    if (loaded.snapshot.context.requestUriMethod !== method)
      throw oauthError('invalid_request:method_not_allowed', `This request object is fetched with ${allowed}`, {
        allow: allowed,
      });
    if (status === 'expired') throw invalidRequestUri('The request has expired');
    if (status !== 'created' && status !== 'fetched') throw invalidRequestUri('The request has already been answered');
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

  /** `POST /oid4vp/response`: 200 `{}` (HAIP: `{redirect_uri}`) once the response is taken, whatever its verdict. */
  async receiveResponse(input: ResponseInput): Promise<Record<string, unknown>> {
    if (input.response !== undefined) return this.receiveEncrypted(input.response);
    const id = requestIdOfState(input.state);
    if (!id) throw invalidRequest(input.state === undefined ? 'state is required' : 'state names no request');
    const loaded = await this.answerable(id, input.state as string);
    // OpenID4VP 1.0 §8.3.1: a wallet that cannot encrypt may still send an error in the clear, never a vp_token.
    if (
      loaded.snapshot.context.responseMode === 'direct_post.jwt' &&
      (input.error === undefined || input.vp_token !== undefined)
    )
      throw invalidRequest('This request asked for an encrypted response (direct_post.jwt): send `response`');
    return this.take(id, loaded.snapshot.context, input, null);
  }

  /** A request that may still be answered, and whose `state` is the one we issued. */
  private async answerable(id: string, state: string): Promise<Loaded<typeof presentationMachine>> {
    const loaded = await this.current(id);
    const status = loaded.snapshot.value as string;
    if (status === 'new' || !sameText(hashOf(state), loaded.snapshot.context.stateHash))
      throw invalidRequest('state names no request');
    if (status === 'expired') throw invalidRequest('The request has expired');
    if (status !== 'created' && status !== 'fetched') throw invalidRequest('The request has already been answered');
    return loaded;
  }

  /** direct_post.jwt: the JWE's `kid` names the request's ephemeral key; inside are the usual members. */
  private async receiveEncrypted(jwe: unknown): Promise<Record<string, unknown>> {
    if (typeof jwe !== 'string' || jwe.split('.').length !== 5) throw invalidRequest('response must be a compact JWE');
    let kid: unknown;
    try {
      kid = decodeJwtHeader(jwe).kid;
    } catch {
      throw invalidRequest('response is not a JWE');
    }
    const id = typeof kid === 'string' && kid.endsWith(ENC_KID_SUFFIX) ? kid.slice(0, -ENC_KID_SUFFIX.length) : '';
    if (!REQUEST_ID.test(id)) throw invalidRequest('the JWE kid names no request key');
    const loaded = await this.current(id);
    const status = loaded.snapshot.value as string;
    if (status === 'new' || loaded.snapshot.context.responseMode !== 'direct_post.jwt')
      throw invalidRequest('the JWE kid names no request key');
    if (status === 'expired') throw invalidRequest('The request has expired');
    if (status !== 'created' && status !== 'fetched') throw invalidRequest('The request has already been answered');
    const key = this.decryptionKeys.get(id);
    if (!key) {
      // The key lived only in memory: after a restart this request can never be answered.
      const at = this.clock.now();
      await this.requests.execute(id, () => [
        { type: 'presentation.response_received', at, enc: null },
        {
          type: 'presentation.rejected',
          at,
          reasons: [
            {
              check: 'decryption',
              reason: 'the ephemeral decryption key of this request is gone (the verifier restarted)',
            },
          ],
        },
      ]);
      throw invalidRequest('The response cannot be decrypted');
    }
    let payload: Record<string, unknown>;
    let enc: string;
    try {
      const decrypted = await compactDecrypt(jwe, key.privateKey, {
        keyManagementAlgorithms: ['ECDH-ES'],
        contentEncryptionAlgorithms: loaded.snapshot.context.encValues,
      });
      payload = JSON.parse(new TextDecoder().decode(decrypted.plaintext)) as Record<string, unknown>;
      if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('not an object');
      enc = decrypted.protectedHeader.enc;
    } catch {
      throw invalidRequest(
        `The response does not decrypt with this request's key (ECDH-ES, ${loaded.snapshot.context.encValues?.join(' or ')}) to a JSON object`,
      );
    }
    if (requestIdOfState(payload.state) !== id) throw invalidRequest('the encrypted response carries another state');
    const answerable = await this.answerable(id, payload.state as string);
    if (payload.response !== undefined) throw invalidRequest('an encrypted response does not nest another response');
    return this.take(id, answerable.snapshot.context, payload, enc);
  }

  /**
   * A wallet error, or a vp_token to verify. The verdict is reached first and appended together with
   * `response_received` in one transaction, taken only while the request is still unanswered: of two
   * concurrent answers one wins, and no crash leaves a request answered without a verdict.
   */
  private async take(
    id: string,
    request: RequestState,
    input: ResponseInput,
    enc: string | null,
  ): Promise<Record<string, unknown>> {
    if (input.error !== undefined) {
      if (typeof input.error !== 'string' || !ERROR_CODE.test(input.error))
        throw invalidRequest('error must be an error code');
      const description =
        typeof input.error_description === 'string' ? input.error_description.slice(0, 500) : undefined;
      const outcome = await this.requests.execute(id, {
        type: 'presentation.wallet_error',
        at: this.clock.now(),
        error: input.error,
        ...(description ? { error_description: description } : {}),
      });
      if (!outcome.accepted) throw invalidRequest('The request can no longer be answered');
      return {};
    }
    if (input.vp_token === undefined) throw invalidRequest('vp_token (or error) is required');
    const { reasons, presentations } = await this.verifyVpToken(request, input.vp_token);
    const responseCode = request.profile === 'haip' ? randomToken(24) : undefined;
    const at = this.clock.now();
    const common = {
      at,
      ...(Object.keys(presentations).length ? { presentations } : {}),
      ...(responseCode ? { response_code_hash: hashOf(responseCode) } : {}),
    };
    const verdict: PresentationEvent =
      reasons.length === 0
        ? { type: 'presentation.verified', ...common, presentations }
        : { type: 'presentation.rejected', ...common, reasons };
    const outcome = await this.requests.execute(id, () => [
      { type: 'presentation.response_received', at, enc },
      verdict,
    ]);
    if (!outcome.accepted) throw invalidRequest('The request can no longer be answered');
    const transactionId = this.decryptionKeys.get(id)?.transactionId;
    return responseCode && transactionId
      ? { redirect_uri: `${this.resultUri(transactionId)}?response_code=${responseCode}` }
      : {};
  }

  private async verifyVpToken(
    request: RequestState,
    vpToken: unknown,
  ): Promise<{ reasons: PresentationReason[]; presentations: Record<string, DisclosedPresentation[]> }> {
    const query = request.dcqlQuery as DcqlQuery;
    const queries = new Map(query.credentials.map((c) => [c.id, c]));
    const answers = parseVpToken(vpToken, queries);
    if (!(answers instanceof Map)) return { reasons: [answers], presentations: Object.create(null) };
    const ctx = {
      clientId: request.clientId,
      nonce: request.nonce,
      responseUri: this.settings.responseUri,
      ...(request.encJwk ? { encryptionJwk: request.encJwk as JWK } : {}),
      now: Math.floor(this.clock.now() / 1000),
      trust: this.trust,
    };
    const reasons: PresentationReason[] = [];
    // Query ids are the caller's names (`__proto__` is a valid one): a null-prototype object keeps each as data.
    const presentations: Record<string, DisclosedPresentation[]> = Object.create(null);
    const presented = new Map<string, StoredCredential[]>();
    const failed = new Set<string>();
    for (const [queryId, items] of answers) {
      const credentialQuery = queries.get(queryId)!;
      const verified: Presented[] = [];
      for (const [index, item] of items.entries()) {
        const outcome = await checkPresentation(credentialQuery.format, item, `${queryId}.${index}`, ctx);
        if (outcome.ok) verified.push(...outcome.credentials);
        else {
          failed.add(queryId);
          reasons.push({ credential_query_id: queryId, check: outcome.check, reason: outcome.reason });
        }
      }
      if (verified.length > 0) presentations[queryId] = verified.map((p) => p.disclosed);
      presented.set(
        queryId,
        verified.map((p) => p.stored),
      );
    }
    reasons.push(...dcqlReasons(query, presented, failed));
    return { reasons, presentations };
  }

  // ----- results -----

  /**
   * `GET /oid4vp/result/{transaction_id}`. Where the answer produced a response_code (the HAIP
   * redirect), disclosed claims are shown only with that code; without it, status and verdicts only.
   */
  async result(transactionId: string, responseCode?: string): Promise<ResultDocument> {
    const id = TRANSACTION_ID.exec(transactionId)?.[1];
    if (!id) throw notFound('No such presentation result');
    const loaded = await this.current(id);
    const expected = loaded.snapshot.context.transactionIdHash;
    if (loaded.snapshot.value === 'new' || expected === undefined || !sameText(hashOf(transactionId), expected))
      throw notFound('No such presentation result');
    const context = loaded.snapshot.context;
    const codeRequired = context.responseCodeHash !== undefined;
    if (responseCode !== undefined && (!codeRequired || !sameText(hashOf(responseCode), context.responseCodeHash!)))
      throw invalidRequest('response_code is not the one issued for this request');
    const withheld = codeRequired && responseCode === undefined;
    const status = loaded.snapshot.value as ResultDocument['status'];
    return {
      request_id: id,
      status,
      ...(typeof context.enc === 'string' ? { enc: context.enc } : {}),
      reasons: context.reasons,
      ...(context.presentations
        ? { presentations: withheld ? withoutClaims(context.presentations) : context.presentations }
        : {}),
      ...(withheld ? { response_code_required: true } : {}),
      ...(context.walletError ? { wallet_error: context.walletError } : {}),
    };
  }
}

/** The presentations of a result with every disclosed claim left out (format and issuer stay). */
function withoutClaims(
  presentations: Record<string, DisclosedPresentation[]>,
): Record<string, Array<Omit<DisclosedPresentation, 'claims'>>> {
  const shown: Record<string, Array<Omit<DisclosedPresentation, 'claims'>>> = Object.create(null);
  for (const [queryId, items] of Object.entries(presentations))
    shown[queryId] = items.map(({ format, issuer }) => ({ format, issuer }));
  return shown;
}
