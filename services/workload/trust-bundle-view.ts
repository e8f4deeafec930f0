import { jwtAuthorities, knownTrustDomains, REFRESH_HINT_SECONDS, x509Authorities } from './bundle.ts';
import { certificateInfo } from './certificate.ts';
import type { WorkloadApiSession } from './ports.ts';
import { summary } from './validate-x509.ts';

/** `GET /spiffe/trust-bundle`: the own trust domain's authorities and what is known of federated ones. */
export function trustBundleView(session: WorkloadApiSession, td: string, sequence: number) {
  const update = session.x509();
  return {
    trust_domain: td,
    spiffe_sequence: sequence,
    refresh_hint_seconds: REFRESH_HINT_SECONDS,
    x509_authorities: x509Authorities(session, td).map((der) => summary(certificateInfo(der))),
    jwt_authorities: jwtAuthorities(session, td).map((k) => ({
      kid: k.kid ?? null,
      kty: k.kty ?? null,
      ...(k.crv ? { crv: k.crv } : {}),
      ...(k.alg ? { alg: k.alg } : {}),
    })),
    federated: knownTrustDomains(session)
      .filter((d) => d !== td)
      .map((d) => ({
        trust_domain: d,
        x509_authorities: (update.federatedBundles[`spiffe://${d}`] ?? update.federatedBundles[d] ?? []).length,
        jwt_authorities: jwtAuthorities(session, d).length,
      })),
    bundle_endpoint: '/spiffe/.well-known/spiffe-bundle',
  };
}
