/**
 * The one clock skew this service allows on the time claims of JWTs made elsewhere (client
 * assertions, DPoP proofs, key proofs, attestations and their PoPs, request objects, KB-JWTs, JWT
 * VCs and VPs): 15 s, oidc-provider's default. RFC 7519 §4.1.4-6 leave "some small leeway" to the
 * implementation; a client whose clock runs a few seconds ahead is not refused for it.
 */
export const CLOCK_SKEW_S = 15;

/** RFC 7519 §4.1.4: `exp` has passed, even allowing the skew. */
export const isExpired = (exp: number, nowS: number): boolean => nowS >= exp + CLOCK_SKEW_S;

/** RFC 7519 §4.1.5-6: an `nbf` or `iat` later than now, beyond the skew. */
export const isFromTheFuture = (time: number, nowS: number): boolean => time > nowS + CLOCK_SKEW_S;

/** An `iat` no more than `maxAgeS` old and not from the future, both allowing the skew. */
export const isFreshIssuedAt = (iat: unknown, nowS: number, maxAgeS: number): iat is number =>
  typeof iat === 'number' && !isFromTheFuture(iat, nowS) && iat >= nowS - maxAgeS - CLOCK_SKEW_S;

/**
 * The time claims of a JWT from elsewhere, each optional: the name of the first one that fails, or
 * undefined. A claim that is present but not a number fails.
 */
export function failedTimeClaim(
  claims: { exp?: unknown; nbf?: unknown; iat?: unknown },
  nowS: number,
): 'exp' | 'nbf' | 'iat' | undefined {
  if (claims.exp !== undefined && (typeof claims.exp !== 'number' || isExpired(claims.exp, nowS))) return 'exp';
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || isFromTheFuture(claims.nbf, nowS))) return 'nbf';
  if (claims.iat !== undefined && (typeof claims.iat !== 'number' || isFromTheFuture(claims.iat, nowS))) return 'iat';
  return undefined;
}
