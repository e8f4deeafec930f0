import type { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { runChecks, type Result, type CheckTrail } from '../result.ts';
import { certificateDer, x509Hash } from './chain.ts';
import { validatePath } from './path.ts';

/** A non-empty array of base64 DER certificates (RFC 7515 §4.1.6), as `x5c` must be. */
const isCertificateChain = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length > 0 && value.every((c) => typeof c === 'string' && /^[A-Za-z0-9+/]+=*$/.test(c));

/**
 * Validates a request object's `x5c` (OpenID4VP wallet behaviour 2): the chain must lead to the
 * configured anchors (e.g. WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM) or, with `systemRoots`, to
 * Node's bundled Mozilla roots; with `expectedHash`, the leaf must match the `x509_hash` client id.
 */
export async function validateX5c(
  x5c: unknown,
  options: {
    trustAnchors?: string[];
    systemRoots?: boolean;
    now: number;
    expectedHash?: string;
    trail?: CheckTrail;
  },
): Promise<Result<{ leaf: X509Certificate; x509Hash: string }, 'x5c'>> {
  return runChecks<{ leaf: X509Certificate; x509Hash: string }, 'x5c'>(options.trail, async (trail: CheckTrail) => {
    trail.ensure(isCertificateChain(x5c), 'x5c', 'x5c must be a non-empty array of base64 DER certificates');
    const anchors = [...(options.trustAnchors ?? []), ...(options.systemRoots ? rootCertificates : [])];
    const { leaf } = await validatePath(
      x5c.map((c) => certificateDer(c)),
      anchors,
      options.now,
      'x5c',
      trail,
    );
    const hash = x509Hash(new Uint8Array(leaf.raw));
    trail.ensure(
      options.expectedHash === undefined || options.expectedHash === hash,
      'x5c',
      'the leaf certificate does not match the x509_hash client identifier',
    );
    return { leaf, x509Hash: hash };
  });
}
