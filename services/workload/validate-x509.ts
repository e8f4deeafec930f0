import { knownTrustDomains, x509Authorities } from './bundle.ts';
import { CertificateParseError, certificateInfo, verifyChain, type CertificateInfo } from './certificate.ts';
import { fingerprint256 } from './der.ts';
import type { WorkloadApiSession } from './ports.ts';
import { parseSpiffeId } from './spiffe-id.ts';
import type { Check } from './validate-jwt.ts';

/**
 * X.509-SVID validation (X.509-SVID standard §4-§5): the leaf has exactly one URI SAN holding a SPIFFE
 * ID, is not a CA, has digitalSignature and neither keyCertSign nor cRLSign, is within its validity
 * period, belongs to a trust domain whose X.509 bundle we hold, and chains to that bundle (pkijs path
 * validation). Every check is reported.
 */
export interface X509Verdict {
  valid: boolean;
  spiffe_id?: string;
  trust_domain?: string;
  certificate?: CertificateSummary;
  chain_length: number;
  checks: Check[];
  reasons: string[];
}

export interface CertificateSummary {
  serial: string;
  subject: string;
  issuer: string;
  not_before: string;
  not_after: string;
  san_uris: string[];
  san_dns: string[];
  is_ca: boolean;
  fingerprint_sha256: string;
}

export const summary = (info: CertificateInfo): CertificateSummary => ({
  serial: info.serial,
  subject: info.subject,
  issuer: info.issuer,
  not_before: info.notBefore.toISOString(),
  not_after: info.notAfter.toISOString(),
  san_uris: info.uriSans,
  san_dns: info.dnsSans,
  is_ca: info.isCa,
  fingerprint_sha256: info.fingerprint,
});

const verdict = (checks: Check[], chainLength: number, extra: Partial<X509Verdict> = {}): X509Verdict => ({
  valid: checks.every((c) => c.ok),
  ...extra,
  chain_length: chainLength,
  checks,
  reasons: checks.filter((c) => !c.ok).map((c) => `${c.check}: ${c.detail}`),
});

/** `chain`: DER certificates, leaf first, as the caller sent them. */
export async function validateX509Svid(
  session: WorkloadApiSession,
  input: { chain: Uint8Array[]; now: number; ownTrustDomain: string },
): Promise<X509Verdict> {
  const { chain, now } = input;
  const checks: Check[] = [];
  if (chain.length === 0) {
    checks.push({ check: 'parse', ok: false, detail: 'no certificate was sent' });
    return verdict(checks, 0);
  }
  const infos: CertificateInfo[] = [];
  for (const [i, der] of chain.entries()) {
    try {
      infos.push(certificateInfo(der));
    } catch (error) {
      const why = error instanceof CertificateParseError ? error.message : (error as Error).message;
      checks.push({ check: 'parse', ok: false, detail: `certificate ${i + 1} of ${chain.length}: ${why}` });
      return verdict(checks, chain.length);
    }
  }
  checks.push({ check: 'parse', ok: true, detail: `${chain.length} certificate(s), leaf first` });
  const leaf = infos[0];

  checks.push({
    check: 'uri_san',
    ok: leaf.uriSans.length === 1,
    detail:
      leaf.uriSans.length === 1
        ? `one URI SAN: ${leaf.uriSans[0]}`
        : leaf.uriSans.length === 0
          ? 'the leaf has no URI SAN: not an X.509-SVID'
          : `the leaf has ${leaf.uriSans.length} URI SANs; an X.509-SVID has exactly one`,
  });
  const id = leaf.uriSans.length === 1 ? parseSpiffeId(leaf.uriSans[0]) : undefined;
  checks.push({
    check: 'spiffe_id',
    ok: Boolean(id?.ok),
    detail: !id
      ? 'no single URI SAN to read a SPIFFE ID from'
      : id.ok
        ? `SPIFFE ID ${id.value.id}`
        : `the URI SAN is not a SPIFFE ID: ${id.reason}`,
  });

  const usage = leaf.keyUsage;
  const leafProblems = [
    ...(leaf.isCa ? ['basic constraints say CA:true'] : []),
    ...(usage === undefined ? ['no key usage extension'] : []),
    ...(usage && !usage.includes('digitalSignature') ? ['digitalSignature is not set'] : []),
    ...(usage?.includes('keyCertSign') ? ['keyCertSign is set'] : []),
    ...(usage?.includes('cRLSign') ? ['cRLSign is set'] : []),
  ];
  checks.push({
    check: 'leaf',
    ok: leafProblems.length === 0,
    detail:
      leafProblems.length === 0
        ? `not a CA; key usage ${usage!.join(', ')}`
        : `not a valid leaf SVID: ${leafProblems.join('; ')}`,
  });

  const from = leaf.notBefore.getTime();
  const to = leaf.notAfter.getTime();
  checks.push({
    check: 'validity',
    ok: now >= from && now <= to,
    detail:
      now < from
        ? `not valid before ${leaf.notBefore.toISOString()}`
        : now > to
          ? `expired at ${leaf.notAfter.toISOString()}`
          : `valid until ${leaf.notAfter.toISOString()} (${Math.floor((to - now) / 1000)} s left)`,
  });

  const trustDomain = id?.ok ? id.value.trustDomain : undefined;
  const anchors = trustDomain ? x509Authorities(session, trustDomain) : [];
  if (!trustDomain) {
    checks.push({ check: 'trust_domain', ok: false, detail: 'no trust domain without a SPIFFE ID' });
  } else if (anchors.length === 0) {
    checks.push({
      check: 'trust_domain',
      ok: false,
      detail: `${trustDomain} is a foreign trust domain: no X.509 bundle for it (known: ${knownTrustDomains(session).join(', ') || 'none'})`,
    });
  } else {
    checks.push({
      check: 'trust_domain',
      ok: true,
      detail:
        trustDomain === input.ownTrustDomain
          ? `${trustDomain} is this service's trust domain`
          : `${trustDomain} is a federated trust domain`,
    });
  }

  if (anchors.length === 0) {
    checks.push({
      check: 'chain',
      ok: false,
      detail: "not verified: no X.509 bundle for the certificate's trust domain",
    });
  } else {
    const anchorPrints = new Set(anchors.map(fingerprint256));
    const intermediates = chain.slice(1).filter((der) => !anchorPrints.has(fingerprint256(der)));
    const result = await verifyChain(chain[0], intermediates, anchors, new Date(now));
    checks.push({
      check: 'chain',
      ok: result.ok,
      detail: result.ok ? `${result.detail}: ${result.path!.join(' -> ')}` : result.detail,
    });
  }

  return verdict(checks, chain.length, {
    ...(id?.ok ? { spiffe_id: id.value.id, trust_domain: id.value.trustDomain } : {}),
    certificate: summary(leaf),
  });
}
