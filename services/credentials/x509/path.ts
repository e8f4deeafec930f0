import { createHash, type X509Certificate } from 'node:crypto';
import * as pkijs from 'pkijs';
import { CheckFailed, CheckTrail } from '../result.ts';
import { parseCertificate } from './chain.ts';

/**
 * The one X.509 path validator (RFC 5280 §6) of Portico, on pkijs' CertificateChainValidationEngine:
 * mdoc IACA chains, `x5c` request objects, client and key attestations, and SPIFFE X.509-SVIDs all
 * go through it. Signatures, validity at `now` and CA constraints come from pkijs; the path must end
 * at one of `anchors`, and every certificate on it is also checked to be within its validity and,
 * above the leaf, to be a CA. Name constraints, policies and revocation are not evaluated.
 */
export interface ValidatedPath {
  leaf: X509Certificate;
  root: X509Certificate;
  /** Leaf first, the trust anchor last (one certificate when the leaf is itself an anchor). */
  path: X509Certificate[];
}

const fingerprint = (der: Uint8Array | Buffer) => createHash('sha256').update(der).digest('base64url');

/**
 * Paths pkijs already built, by the fingerprints of the chain and the anchors (bounded): a verifier
 * meets the same document signers on every presentation. Only the path is kept; validity at the
 * verification time is checked again on every call.
 */
const builtPaths = new Map<string, string[]>();
const BUILT_MAX = 512;

export async function validatePath<C extends string>(
  chainDer: Uint8Array[],
  anchors: (Uint8Array | string)[],
  nowSeconds: number,
  check: C,
  trail: CheckTrail = new CheckTrail(),
): Promise<ValidatedPath> {
  trail.ensure(chainDer.length > 0, check, 'the certificate chain is empty');
  trail.ensure(anchors.length > 0, check, 'no trust anchor is configured');
  let chain: X509Certificate[];
  let roots: X509Certificate[];
  try {
    chain = chainDer.map((c) => parseCertificate(c));
    roots = anchors.map((r) => parseCertificate(r));
  } catch {
    throw new CheckFailed(check, 'a certificate cannot be parsed');
  }
  const printed = [...chain, ...roots].map((c) => [fingerprint(c.raw), c] as const);
  const byPrint = new Map(printed);
  const key = printed.map(([print]) => print).join('.');
  let prints = builtPaths.get(key);
  if (!prints) {
    prints = await buildPath(chain, roots, nowSeconds, check, trail);
    if (builtPaths.size >= BUILT_MAX) builtPaths.delete(builtPaths.keys().next().value as string);
    builtPaths.set(key, prints);
  }
  const path = prints.map((p) => byPrint.get(p)!);
  for (const cert of path)
    trail.ensure(
      within(cert, nowSeconds),
      check,
      `certificate "${label(cert)}" is not valid at the verification time (${cert.validFrom} - ${cert.validTo})`,
    );
  for (const cert of path.slice(1))
    trail.ensure(cert.ca, check, `certificate "${label(cert)}" issues certificates but is not a CA`);
  return { leaf: path[0], root: path[path.length - 1], path };
}

const within = (cert: X509Certificate, nowSeconds: number) =>
  nowSeconds * 1000 >= Date.parse(cert.validFrom) && nowSeconds * 1000 <= Date.parse(cert.validTo);
const label = (cert: X509Certificate) => cert.subject.replace(/\n/g, ', ');

/** The path pkijs builds and validates from the leaf to an anchor, as fingerprints; throws CheckFailed. */
async function buildPath<C extends string>(
  chain: X509Certificate[],
  roots: X509Certificate[],
  nowSeconds: number,
  check: C,
  trail: CheckTrail,
): Promise<string[]> {
  const leaf = chain[0];
  // A leaf that is itself a trust anchor is its own path (a pinned certificate).
  if (roots.some((r) => r.raw.equals(leaf.raw))) return [fingerprint(leaf.raw)];
  const toPkijs = (c: X509Certificate) => pkijs.Certificate.fromBER(new Uint8Array(c.raw));
  const anchorPrints = new Set(roots.map((r) => fingerprint(r.raw)));
  const intermediates = chain.slice(1).filter((c) => !anchorPrints.has(fingerprint(c.raw)));
  // The engine takes the end entity as the last of `certs`.
  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: roots.map(toPkijs),
    certs: [...intermediates.map(toPkijs), toPkijs(leaf)],
    checkDate: new Date(nowSeconds * 1000),
  });
  let result: { result: boolean; resultMessage: string; certificatePath?: pkijs.Certificate[] };
  try {
    result = await engine.verify();
  } catch (error) {
    result = { result: false, resultMessage: (error as Error).message };
  }
  if (!result.result || !result.certificatePath?.length) {
    // Blame only what the path would use: the chain, and the anchors named as its top's issuer. An
    // unrelated anchor of the system store that lapsed says nothing about this chain.
    const top = chain[chain.length - 1];
    const candidates = [...chain, ...roots.filter((r) => r.subject === top.issuer)];
    const expired = candidates.find((c) => !within(c, nowSeconds));
    if (expired)
      throw new CheckFailed(
        check,
        `certificate "${label(expired)}" is not valid at the verification time (${expired.validFrom} - ${expired.validTo})`,
      );
    throw new CheckFailed(
      check,
      `the chain does not lead to a trusted anchor (${result.resultMessage || 'no valid certificate path'})`,
    );
  }
  const prints = result.certificatePath.map((c) => fingerprint(new Uint8Array(c.toSchema().toBER(false))));
  // pkijs lists the path from the end entity to the anchor; make sure of that order.
  if (prints[0] !== fingerprint(leaf.raw)) prints.reverse();
  trail.ensure(prints[0] === fingerprint(leaf.raw), check, 'the validated path does not start at the leaf');
  trail.ensure(anchorPrints.has(prints[prints.length - 1]), check, 'the chain does not lead to a trusted anchor');
  return prints;
}
