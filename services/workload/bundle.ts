import { createHash } from 'node:crypto';
import { publicJwk } from './certificate.ts';
import type { WorkloadApiSession } from './ports.ts';
import { parseSpiffeId, trustDomainId, trustDomainOf } from './spiffe-id.ts';

/**
 * The trust bundles a session holds, by trust domain: X.509 authorities from the SVID messages (own
 * domain) and their federated bundles, JWT authorities from the JWT bundle stream. Served in the
 * SPIFFE bundle format (SPIFFE Trust Domain and Bundle standard §4): a JWK set with `use`
 * `x509-svid` (one certificate in `x5c`) or `jwt-svid` (with `kid`), plus `spiffe_sequence` and
 * `spiffe_refresh_hint`.
 */
export const REFRESH_HINT_SECONDS = 300;

const PUBLIC_MEMBERS = ['kty', 'kid', 'alg', 'crv', 'x', 'y', 'n', 'e'];

export function x509Authorities(session: WorkloadApiSession, trustDomain: string): Uint8Array[] {
  const update = session.x509();
  for (const svid of update.svids) {
    const id = parseSpiffeId(svid.spiffeId);
    if (id.ok && id.value.trustDomain === trustDomain) return svid.bundle;
  }
  return update.federatedBundles[trustDomainId(trustDomain)] ?? update.federatedBundles[trustDomain] ?? [];
}

/** JWT authorities of a trust domain, public members only. */
export function jwtAuthorities(session: WorkloadApiSession, trustDomain: string): Array<Record<string, unknown>> {
  const bundles = session.jwtBundles();
  const set = bundles[trustDomainId(trustDomain)] ?? bundles[trustDomain];
  const keys = Array.isArray(set?.keys) ? set.keys : [];
  return keys
    .filter((k): k is Record<string, unknown> => Boolean(k) && typeof k === 'object' && !Array.isArray(k))
    .map((k) => Object.fromEntries(PUBLIC_MEMBERS.filter((m) => typeof k[m] === 'string').map((m) => [m, k[m]])));
}

/** Every trust domain the session holds a bundle for. */
export function knownTrustDomains(session: WorkloadApiSession): string[] {
  const update = session.x509();
  const domains = new Set<string>();
  for (const svid of update.svids) {
    const id = parseSpiffeId(svid.spiffeId);
    if (id.ok) domains.add(id.value.trustDomain);
  }
  for (const key of Object.keys(update.federatedBundles)) domains.add(trustDomainOf(key));
  for (const key of Object.keys(session.jwtBundles())) domains.add(trustDomainOf(key));
  return [...domains].sort();
}

export function bundleKeys(session: WorkloadApiSession, trustDomain: string): Array<Record<string, unknown>> {
  return [
    ...x509Authorities(session, trustDomain).map((der) => ({
      ...publicJwk(der),
      use: 'x509-svid',
      x5c: [Buffer.from(der).toString('base64')],
    })),
    ...jwtAuthorities(session, trustDomain).map((k) => ({ ...k, use: 'jwt-svid' })),
  ];
}

/**
 * `spiffe_sequence`: rises each time the served bundle of a trust domain differs from the last one
 * served. Nothing is stored: a process starts a trust domain at the current Unix time in milliseconds, so
 * the numbers keep rising across restarts (a restart may move them once without a bundle change).
 */
export class BundleSequence {
  private readonly seen = new Map<string, { digest: string; sequence: number }>();

  /** `nowMs` seeds a trust domain's first number, so sequences keep rising across service restarts. */
  observe(trustDomain: string, keys: unknown[], nowMs: number): number {
    const digest = createHash('sha256').update(JSON.stringify(keys)).digest('hex');
    const last = this.seen.get(trustDomain);
    if (last?.digest === digest) return last.sequence;
    const sequence = Math.max((last?.sequence ?? 0) + 1, Math.floor(nowMs));
    this.seen.set(trustDomain, { digest, sequence });
    return sequence;
  }
}
