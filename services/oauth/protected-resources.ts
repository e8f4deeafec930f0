import { OAuthError, oauthError } from '../errors.ts';
import { challenge } from './www-authenticate.ts';

/** What a resource may refuse a request with, each sent with a challenge (RFC 6750 §3.1, RFC 9449 §7.1). */
type ResourceErrorName =
  'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof:at_resource' | 'use_dpop_nonce:at_resource';

/** The 401 of RFC 6750 section 3 (and RFC 9449 section 7.1 for DPoP), with RFC 9728's pointer. */
export function invalidTokenError(
  description: string,
  options: {
    scheme?: 'Bearer' | 'DPoP';
    resourceMetadata?: string;
    error?: ResourceErrorName;
    scope?: string;
  } = {},
): OAuthError {
  const refusal = oauthError(options.error ?? 'invalid_token', description);
  const scheme = options.scheme ?? 'Bearer';
  const params: Array<[string, string | undefined]> = [
    ['error', refusal.error],
    ['error_description', description],
    ['scope', options.scope],
    ['resource_metadata', options.resourceMetadata],
  ];
  // RFC 9449 §7.1: a DPoP challenge names the algorithms the resource accepts.
  if (scheme === 'DPoP') params.unshift(['algs', 'ES256 RS256 EdDSA']);
  return refusal.withHeaders({ 'www-authenticate': challenge(scheme, params) });
}

/**
 * RFC 6750 §3.1: a request that carried no token at all. The challenge names no error code (the
 * client did not try), only where to learn more and the scope to ask for.
 */
export const tokenRequired = (
  description: string,
  options: { resourceMetadata?: string; scope?: string; realm?: string },
): OAuthError =>
  oauthError('invalid_token', description).withHeaders({
    'www-authenticate': challenge('Bearer', [
      ['realm', options.realm],
      ['resource_metadata', options.resourceMetadata],
      ['scope', options.scope],
    ]),
  });

/** RFC 6750 §3.1: a valid token without the scope the resource needs is 403 `insufficient_scope`, with the challenge naming it. */
export const insufficientScope = (
  scope: string,
  options: { scheme?: 'Bearer' | 'DPoP'; resourceMetadata?: string } = {},
): OAuthError =>
  invalidTokenError(`The access token lacks the ${scope} scope`, {
    ...options,
    error: 'insufficient_scope',
    scope,
  });

/**
 * RFC 9449 §7.1: a DPoP proof refused at a resource is a 401 with a `DPoP` challenge naming the error
 * (`invalid_dpop_proof`, or `use_dpop_nonce` with its `DPoP-Nonce`), never a bare 400.
 */
export function dpopChallenge(error: OAuthError, resourceMetadata?: string): OAuthError {
  const name = error.error === 'use_dpop_nonce' ? 'use_dpop_nonce:at_resource' : 'invalid_dpop_proof:at_resource';
  return invalidTokenError(error.description, { scheme: 'DPoP', error: name, resourceMetadata }).withHeaders(
    error.headers,
  );
}
