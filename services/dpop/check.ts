import { decodeJwt } from 'jose';
import { oauthError } from '../errors.ts';
import type { DPoPNonces } from './nonce.ts';
import { DPoPError, verifyDPoPProof, type VerifiedProof } from './proof.ts';

/** What one server side (an authorization server, or a resource) checks DPoP proofs with. */
export interface DPoPServer {
  side: 'as' | 'rs';
  nowMs(): number;
  /** The side's nonce source when nonces are required (RFC 9449 §8, §9); undefined otherwise. */
  nonces?: DPoPNonces;
  /** Records a single-use value; false when it was seen before. */
  useOnce(purpose: string, value: string): Promise<boolean>;
}

/**
 * The server side of DPoP at every endpoint of ours (RFC 9449 §4.3): one header, a valid proof for this
 * method and URL (and access token, at a resource), the side's nonce when required, a `jti` never seen
 * before. Undefined when no DPoP header was sent. A missing nonce is `use_dpop_nonce` with a fresh
 * `DPoP-Nonce`: 400 from an authorization server (§8), 401 from a resource (§9).
 */
export async function checkDPoP(
  header: string | string[] | undefined,
  request: { method: string; url: string; accessToken?: string },
  server: DPoPServer,
): Promise<VerifiedProof | undefined> {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new DPoPError('Send exactly one DPoP header');
  const proof = await verifyDPoPProof(header, {
    method: request.method,
    url: request.url,
    nowMs: server.nowMs(),
    accessToken: request.accessToken,
  });
  if (server.nonces && !server.nonces.accepts(decodeJwt(header).nonce)) {
    const who = server.side === 'as' ? 'Authorization server' : 'Resource server';
    throw oauthError(
      server.side === 'as' ? 'use_dpop_nonce' : 'use_dpop_nonce:at_resource',
      `${who} requires nonce in DPoP proof`,
      {
        'dpop-nonce': server.nonces.current(),
      },
    );
  }
  if (!(await server.useOnce('dpop-jti', `${proof.jkt}:${proof.jti}`)))
    throw new DPoPError('The DPoP proof was already used (jti replay)');
  return proof;
}
