import { oauthError } from '../errors.ts';

const invalidTarget = (description: string) => oauthError('invalid_target', description);

/**
 * RFC 8707 §2: a `resource` parameter names one absolute URI without a fragment, and one this issuer
 * mints tokens for. Undefined when the request names none. One resource per request here.
 */
export function checkResource(value: string | string[] | undefined, known: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length !== 1) throw invalidTarget('Name one resource per request');
    return checkResource(value[0], known);
  }
  if (!URL.canParse(value)) throw invalidTarget('resource must be an absolute URI (RFC 8707 §2)');
  if (value.includes('#')) throw invalidTarget('resource must not have a fragment (RFC 8707 §2)');
  // Compared as given: the resource identifiers are this server's own URLs, published in its metadata.
  if (!known.includes(value))
    throw invalidTarget(`This server issues no tokens for ${value.slice(0, 200)}; it knows ${known.join(', ')}`);
  return value;
}

/**
 * RFC 8707 §2.2: at the token endpoint a resource may repeat the one authorized, never name another;
 * the token's audience is the authorized one, the requested one, or the issuer's default.
 */
export function tokenResource(
  requested: string | string[] | undefined,
  authorized: string | undefined,
  known: readonly string[],
): string | undefined {
  const resource = checkResource(requested, known);
  if (authorized !== undefined && resource !== undefined && resource !== authorized)
    throw invalidTarget(`The grant was authorized for ${authorized}, not ${resource}`);
  return resource ?? authorized;
}
