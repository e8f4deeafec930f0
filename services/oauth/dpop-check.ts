import { decodeJwt } from 'jose';
import { verifyDPoPProof, DPoPError, type VerifiedProof } from '../dpop/proof.ts';
import { OAuthError } from '../errors.ts';
import type { OAuthDeps } from './deps.ts';

/**
 * A DPoP proof at one of our endpoints: form, signature, htm/htu, freshness, single-use jti, and the
 * server nonce when required. Returns undefined when no DPoP header was sent.
 */
export async function checkDPoP(
  deps: OAuthDeps,
  header: string | string[] | undefined,
  request: { method: string; url: string; accessToken?: string },
): Promise<VerifiedProof | undefined> {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new DPoPError('Send exactly one DPoP header');
  const proof = await verifyDPoPProof(header, {
    method: request.method,
    url: request.url,
    nowMs: deps.clock.now(),
    accessToken: request.accessToken,
  });
  if (deps.dpopNonceRequired) {
    if (!deps.nonces.accepts(decodeJwt(header).nonce)) {
      throw new OAuthError('use_dpop_nonce', 'Authorization server requires nonce in DPoP proof', 400, { 'dpop-nonce': deps.nonces.current() });
    }
  }
  if (!(await deps.useOnce('dpop-jti', `${proof.jkt}:${proof.jti}`))) throw new DPoPError('The DPoP proof was already used (jti replay)');
  return proof;
}
