import { sha256 } from '../crypto/random.ts';

/**
 * PKCE (RFC 7636) as both authorization servers take it: S256 only. A code challenge is
 * BASE64URL(SHA-256(code_verifier)), so exactly 43 base64url characters (§4.2); a verifier is 43 to 128
 * unreserved characters (§4.1).
 */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** §4.3: an S256 challenge the server can ever match. */
export const isS256Challenge = (challenge: unknown): challenge is string =>
  typeof challenge === 'string' && CODE_CHALLENGE.test(challenge);

/** §4.6: the verifier is well formed and BASE64URL(SHA-256(verifier)) equals the challenge. */
export const verifierMatches = (verifier: unknown, challenge: string): boolean =>
  typeof verifier === 'string' && CODE_VERIFIER.test(verifier) && sha256(verifier) === challenge;
