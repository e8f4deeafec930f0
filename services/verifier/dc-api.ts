import type { KeyObject } from 'node:crypto';
import {
  presentationStates,
  throughTheBrowser,
  type ClientIdPrefix,
  type PresentationContext as RequestState,
  type PresentationEvent,
  type ResponseMode,
} from '../../machines/presentation.ts';
import type { DcqlQuery } from '../credentials/dcql/types.ts';
import { randomToken, timeOrderedToken } from '../crypto/random.ts';
import { invalidRequest, notFound, oauthError } from '../errors.ts';
import { isWebOrigin } from '../untrusted/origin.ts';
import type { KeyRing } from '../keys.ts';
import type { VerifierCore } from './core.ts';
import { clientIdOf, dcApiParameters, ephemeralEncryptionKey, signRequestObject } from './request-object.ts';
import { decryptAnswer, take } from './response.ts';
import { requireUnanswered, walletError } from './response-rules.ts';
import { requestOfTransaction } from './result.ts';
import { ENC_KID_SUFFIX, hashOf } from './rules.ts';
import { CLIENT_ID_PREFIXES, REQUEST_TTL_S, type VerifierPki } from './settings.ts';

/** The exchange protocols of the Digital Credentials API (OpenID4VP 1.0 Appendix A.1). */
const DC_API_PROTOCOLS = { dc_api: 'openid4vp-v1-unsigned', 'dc_api.jwt': 'openid4vp-v1-signed' } as const;
const MAX_ORIGINS = 10;

/** What DC API requests need of the verifier beyond its core. */
export interface DcApiVerifier extends VerifierCore {
  readonly keys: KeyRing;
  readonly pki: VerifierPki;
  keepDecryptionKey(id: string, kept: { privateKey: KeyObject; expiresAt: number }): void;
}

export interface DcApiCreation {
  mode: 'dc_api' | 'dc_api.jwt';
  clientIdPrefix?: string;
  expectedOrigins?: unknown;
  dcqlQuery: DcqlQuery;
  transactionData?: string[];
  encValues: string[];
}

/**
 * Appendix A.2: each expected origin is an origin, serialized as the browser reports it; schemes the
 * specification forbids (ftp, javascript, data, ws, wss) cannot be one. http is kept for sandboxes on
 * a loopback or local BASE_URL, which this is.
 */
function checkedExpectedOrigins(value: unknown, baseUrl: string): string[] {
  if (value === undefined) return [new URL(baseUrl).origin];
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ORIGINS)
    throw invalidRequest(`expected_origins must be a non-empty array of at most ${MAX_ORIGINS} origins`);
  const origins: unknown[] = value;
  const bad = origins.find((origin) => !isWebOrigin(origin));
  if (bad !== undefined)
    throw invalidRequest(
      `expected_origins: ${JSON.stringify(bad)?.slice(0, 100) ?? 'a value'} is not an https (or http) origin such as https://verifier.example`,
    );
  return [...new Set(origins as string[])];
}

/**
 * `POST /oid4vp/request/create` with `response_mode` dc_api (unsigned, Appendix A.3.1) or dc_api.jwt
 * (a request object signed like the by-reference ones, with expected_origins, and an encrypted
 * answer). The answer carries the exact `digital` argument of `navigator.credentials.get`.
 */
export async function createDcApiRequest(verifier: DcApiVerifier, input: DcApiCreation) {
  const signed = input.mode === 'dc_api.jwt';
  if (!signed && input.clientIdPrefix !== undefined)
    throw invalidRequest('dc_api requests are unsigned and carry no client_id: use dc_api.jwt to sign');
  const prefix = (input.clientIdPrefix ?? 'x509_hash') as ClientIdPrefix;
  if (signed && (prefix === 'redirect_uri' || !CLIENT_ID_PREFIXES.includes(prefix)))
    throw invalidRequest('dc_api.jwt is signed: client_id_prefix must be one that signs (x509_hash by default)');
  const expectedOrigins = checkedExpectedOrigins(input.expectedOrigins, verifier.settings.baseUrl);
  const at = verifier.clock.now();
  const id = timeOrderedToken(at, 12);
  const expiresAt = at + REQUEST_TTL_S * 1000;
  const encryption = signed ? ephemeralEncryptionKey(`${id}${ENC_KID_SUFFIX}`) : undefined;
  const clientId = signed ? clientIdOf(prefix, verifier.settings, verifier.pki, verifier.keys) : undefined;
  const nonce = randomToken(24);
  const transactionId = `${id}.${randomToken(16)}`;
  const event: PresentationEvent = {
    type: 'presentation.created',
    at,
    ...(clientId ? { client_id: clientId, client_id_prefix: prefix } : {}),
    response_mode: input.mode as ResponseMode,
    nonce,
    // No state travels over the DC API (Appendix A.2): the transaction id names the request.
    state_hash: hashOf(`no-state:${randomToken(16)}`),
    transaction_id_hash: hashOf(transactionId),
    dcql_query: input.dcqlQuery,
    ...(input.transactionData ? { transaction_data: input.transactionData } : {}),
    expected_origins: expectedOrigins,
    expires_at: expiresAt,
    ...(encryption
      ? { enc_values: [...new Set(input.encValues)], enc_jwk: encryption.publicJwk as Record<string, unknown> }
      : {}),
  };
  const outcome = await verifier.requests.create(id, event);
  if (!outcome.accepted) throw oauthError('temporarily_unavailable', 'The request could not be created; try again');
  if (encryption) verifier.keepDecryptionKey(id, { privateKey: encryption.privateKey, expiresAt });
  const digital = digitalArgument(verifier, id, outcome.snapshot.context, at);
  const page = `${verifier.settings.baseUrl}/oid4vp/dc-api/${transactionId}`;
  return {
    request_id: id,
    transaction_id: transactionId,
    ...(clientId ? { client_id: clientId } : {}),
    response_mode: input.mode,
    nonce,
    dcql_query: input.dcqlQuery,
    ...(input.transactionData ? { transaction_data: input.transactionData } : {}),
    expected_origins: expectedOrigins,
    expires_in: REQUEST_TTL_S,
    result_uri: verifier.resultUri(transactionId),
    dc_api_page: page,
    dc_api_response_uri: `${page}/response`,
    digital,
  };
}

/**
 * The `digital` argument of `navigator.credentials.get` (Appendix A.1-A.3): the parameters
 * themselves when unsigned, `{request: <JWS>}` when signed (signed anew each time it is shown).
 */
function digitalArgument(verifier: DcApiVerifier, id: string, state: RequestState, at: number) {
  const mode = state.responseMode as keyof typeof DC_API_PROTOCOLS;
  const data =
    mode === 'dc_api.jwt'
      ? {
          request: signRequestObject({
            id,
            state,
            stateValue: '',
            settings: verifier.settings,
            pki: verifier.pki,
            keys: verifier.keys,
            nowS: Math.floor(at / 1000),
          }),
        }
      : dcApiParameters(state);
  return { requests: [{ protocol: DC_API_PROTOCOLS[mode], data }] };
}

/** What the DC API page shows of a request: its status, the `digital` argument, where to answer. */
export async function dcApiView(verifier: DcApiVerifier, transactionId: string) {
  const { id, loaded } = await dcApiRequest(verifier, transactionId);
  const state = loaded.snapshot.context;
  const page = `${verifier.settings.baseUrl}/oid4vp/dc-api/${transactionId}`;
  return {
    transactionId,
    status: loaded.snapshot.value as string,
    responseMode: state.responseMode,
    digital: digitalArgument(verifier, id, state, verifier.clock.now()),
    expectedOrigins: state.expectedOrigins ?? [],
    responseUri: `${page}/response`,
    resultUri: verifier.resultUri(transactionId),
  };
}

/** The request a DC API transaction id names (404 for any other id), with the request's state. */
async function dcApiRequest(verifier: VerifierCore, transactionId: string) {
  const found = await requestOfTransaction(verifier, transactionId, 'No such presentation request');
  if (!throughTheBrowser(found.loaded.snapshot.context.responseMode)) throw notFound('No such presentation request');
  return found;
}

/** What the browser handed back: `credential.data`, an object (or its JSON text). */
function dataObject(data: unknown): Record<string, unknown> {
  let value = data;
  if (typeof value === 'string')
    try {
      value = JSON.parse(value);
    } catch {
      throw invalidRequest('data is not JSON');
    }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw invalidRequest('data must be the object the browser returned (credential.data)');
  return value as Record<string, unknown>;
}

/**
 * `POST /oid4vp/dc-api/{transaction_id}/response {origin, data}` (Appendix A.4): the page (or an
 * agent) hands back what the browser returned. The origin is checked and bound as the audience; an
 * error in `data` is the wallet's error response.
 */
export async function receiveDcApiResponse(
  verifier: VerifierCore,
  transactionId: string,
  body: { origin?: unknown; data?: unknown },
): Promise<Record<string, unknown>> {
  const { id, loaded } = await dcApiRequest(verifier, transactionId);
  if (!presentationStates.openToDcApi(loaded.snapshot))
    throw invalidRequest('replay: this request has already been answered');
  requireUnanswered(loaded.snapshot);
  if (typeof body.origin !== 'string' || body.origin === '' || body.origin.length > 500)
    throw invalidRequest('origin is required: the origin the browser reported');
  const data = dataObject(body.data);
  const request = loaded.snapshot.context;
  if (data.error !== undefined) {
    await take(verifier, id, request, walletError(data), null);
    return { result_uri: verifier.resultUri(transactionId) };
  }
  if (request.responseMode === 'dc_api.jwt') {
    if (typeof data.response !== 'string' || data.vp_token !== undefined)
      throw invalidRequest('This request asked for an encrypted answer (dc_api.jwt): data carries `response`');
    const { payload, enc } = await decryptAnswer(verifier, id, data.response, request);
    if (payload.response !== undefined) throw invalidRequest('an encrypted response does not nest another response');
    await take(verifier, id, request, payload, enc, body.origin);
  } else {
    if (data.response !== undefined) throw invalidRequest('This request (dc_api) takes vp_token in the clear');
    await take(verifier, id, request, data, null, body.origin);
  }
  return { result_uri: verifier.resultUri(transactionId) };
}
