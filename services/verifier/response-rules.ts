import { sameText } from '../crypto/compare.ts';
import { presentationStates } from '../../machines/presentation.ts';
import { decodeJwtHeader } from '../crypto/decode-jwt.ts';
import { invalidRequest } from '../errors.ts';
import { ENC_KID_SUFFIX, ERROR_CODE, hashOf, REQUEST_ID } from './rules.ts';

/**
 * The checks of the response endpoint (OpenID4VP 1.0 §8.2, §8.3), each a named function of its
 * inputs alone, so that each can be tested alone.
 */

/** A request is answered once, before it expires. */
export function requireUnanswered(request: { value: unknown }): void {
  if (presentationStates.expired(request)) throw invalidRequest('The request has expired');
  if (!presentationStates.unanswered(request)) throw invalidRequest('The request has already been answered');
}

/** §8.2: the `state` must be the one this verifier issued for the request (compared by its hash). */
export function requireIssuedState(request: { value: unknown }, stateHash: string | undefined, state: string): void {
  if (!presentationStates.created(request) || stateHash === undefined || !sameText(hashOf(state), stateHash))
    throw invalidRequest('state names no request');
}

/** §8.3.1: a request for `direct_post.jwt` takes an error in the clear, never a vp_token. */
export function requireClearResponseAllowed(responseMode: string, input: { error?: unknown; vp_token?: unknown }) {
  if (responseMode === 'direct_post.jwt' && (input.error === undefined || input.vp_token !== undefined))
    throw invalidRequest('This request asked for an encrypted response (direct_post.jwt): send `response`');
}

/** §8.3: an encrypted response is a compact JWE whose `kid` names the request's ephemeral key (`<request_id>.enc`). */
export function encryptedResponse(jwe: unknown): { jwe: string; requestId: string } {
  if (typeof jwe !== 'string' || jwe.split('.').length !== 5) throw invalidRequest('response must be a compact JWE');
  let kid: unknown;
  try {
    kid = decodeJwtHeader(jwe).kid;
  } catch {
    throw invalidRequest('response is not a JWE');
  }
  const id = typeof kid === 'string' && kid.endsWith(ENC_KID_SUFFIX) ? kid.slice(0, -ENC_KID_SUFFIX.length) : '';
  if (!REQUEST_ID.test(id)) throw invalidRequest('the JWE kid names no request key');
  return { jwe, requestId: id };
}

/** §8.5: a wallet's error response is a short ASCII code, with a description kept to 500 characters. */
export function walletError(input: { error?: unknown; error_description?: unknown }): {
  error: string;
  error_description?: string;
} {
  if (typeof input.error !== 'string' || !ERROR_CODE.test(input.error))
    throw invalidRequest('error must be an error code');
  const description = typeof input.error_description === 'string' ? input.error_description.slice(0, 500) : undefined;
  return { error: input.error, ...(description ? { error_description: description } : {}) };
}
