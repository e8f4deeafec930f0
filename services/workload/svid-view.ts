import { certificateInfo } from './certificate.ts';
import { parseSpiffeId } from './spiffe-id.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (ms: number) => Math.floor(ms / 1000);

/** `GET /spiffe/svid`: the default X.509-SVID as a person reads it (never its private key). */
export function svidView(
  svid: { spiffeId: string; chain: Uint8Array[]; hint?: string },
  nowMs: number,
  rotationsObserved: number,
) {
  const info = certificateInfo(svid.chain[0]);
  const id = parseSpiffeId(svid.spiffeId);
  const from = info.notBefore.getTime();
  const to = info.notAfter.getTime();
  return {
    spiffe_id: svid.spiffeId,
    trust_domain: id.ok ? id.value.trustDomain : null,
    path: id.ok ? id.value.path : null,
    ...(svid.hint ? { hint: svid.hint } : {}),
    type: 'x509-svid',
    serial: info.serial,
    not_before: info.notBefore.toISOString(),
    not_after: info.notAfter.toISOString(),
    lifetime_seconds: seconds(to - from),
    remaining_seconds: Math.max(0, seconds(to - nowMs)),
    rotation_expected_at: iso(from + (to - from) / 2),
    fingerprint_sha256: info.fingerprint,
    chain_length: svid.chain.length,
    public_key: info.publicKey,
    private_key: 'held in memory for the mTLS demo; never served or logged',
    rotations_observed: rotationsObserved,
  };
}
