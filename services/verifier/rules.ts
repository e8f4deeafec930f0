import { type PresentationReason } from '../../machines/presentation.ts';
import type { CredentialQuery, DcqlQuery } from '../credentials/dcql/types.ts';
import { DcqlQueryError, validateDcqlQuery } from '../credentials/dcql/validate.ts';
import { sha256 } from '../crypto/random.ts';
import { invalidRequest, oauthError } from '../errors.ts';
import { CONTENT_ENCRYPTIONS, DEFAULT_DCQL_QUERY } from './settings.ts';

import type { CreateRequestInput } from './service.ts';

/**
 * Request ids sort by creation time (8 characters) and carry 96 random bits (16 more): the id is
 * what a result document is fetched by, and a presentation stream's log rows written together stay
 * together in the log's index.
 */
const REQUEST_ID_LENGTH = 24;
export const REQUEST_ID = new RegExp(`^[A-Za-z0-9_-]{${REQUEST_ID_LENGTH}}$`);
const STATE = new RegExp(`^[A-Za-z0-9_-]{${REQUEST_ID_LENGTH}}\\.[A-Za-z0-9_-]{43}$`);
/**
 * The capability a result is read by: the request id (to find the stream), then 128 random bits, of
 * which the log keeps only a SHA-256. The request id travels in request URIs and QR codes; this never does.
 */
export const TRANSACTION_ID = new RegExp(`^([A-Za-z0-9_-]{${REQUEST_ID_LENGTH}})\\.[A-Za-z0-9_-]{22}$`);
export const ENC_KID_SUFFIX = '.enc';
const FORMATS = new Set(['dc+sd-jwt', 'vc+sd-jwt', 'mso_mdoc', 'jwt_vc_json', 'jwt_vc_json-ld', 'ldp_vc']);
/** A wallet's error code and description are short ASCII (RFC 6749 §4.1.2.1 character set). */
export const ERROR_CODE = /^[\x20-\x21\x23-\x5B\x5D-\x7E]{1,100}$/;

export const hashOf = (value: string) => sha256(value);
export const invalidRequestUri = (description: string) => oauthError('invalid_request_uri', description);

/** The request id a `state` value names (`<request_id>.<mac>`), so no lookup table is needed. */
export const requestIdOfState = (state: unknown) =>
  typeof state === 'string' && STATE.test(state) ? state.slice(0, REQUEST_ID_LENGTH) : undefined;

/** The profile rule (HAIP 1.0): `haip` means x509_hash + direct_post.jwt; an explicit other choice conflicts. */
export function applyProfile(input: CreateRequestInput): { prefix: string; mode: string } {
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
export function checkedDcqlQuery(value: unknown): DcqlQuery {
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
export function parseVpToken(
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

/** The content encryptions a request offers for its encrypted answer: A128GCM and/or A256GCM (default A128GCM). */
export function checkedEncValues(value: unknown): string[] {
  const encValues = value ?? ['A128GCM'];
  if (
    !Array.isArray(encValues) ||
    encValues.length === 0 ||
    encValues.some((e) => !(CONTENT_ENCRYPTIONS as readonly string[]).includes(e as string))
  )
    throw invalidRequest(`encrypted_response_enc_values_supported must list ${CONTENT_ENCRYPTIONS.join(' and/or ')}`);
  return encValues as string[];
}
