import type { X509Certificate } from 'node:crypto';
import { type CheckTrail } from '../result.ts';
import { KEY_USAGE, keyUsageOf } from '../x509/chain.ts';
import { validatePath } from '../x509/path.ts';

/** Extended key usage of an mdoc document signer (ISO/IEC 18013-5 Annex B.1.4). */
export const MDL_DS_EKU = '1.0.18013.5.1.2';

/**
 * Validates `x5chain` (leaf first) up to one of `trustedRoots` (RFC 5280 path, simplified to the
 * mdoc profile): each certificate issued and signed by the next, the last one by a trusted IACA;
 * every certificate valid at `now`; the IACA a CA with keyCertSign; the leaf a document signer
 * (digitalSignature, EKU 1.0.18013.5.1.2, not a CA). Failures throw `CheckFailed('chain', ...)`.
 */
export async function validateDocumentSignerChain(
  x5chain: Uint8Array[],
  trustedRoots: (Uint8Array | string)[],
  nowSeconds: number,
  trail: CheckTrail,
): Promise<{ leaf: X509Certificate; root: X509Certificate }> {
  trail.ensure(trustedRoots.length > 0, 'chain', 'no trusted IACA root is configured');
  const { leaf, root } = await validatePath(x5chain, trustedRoots, nowSeconds, 'chain', trail);
  trail.ensure(root.ca, 'chain', 'the IACA root is not a CA');
  const rootUsage = keyUsageOf(root);
  trail.ensure(
    rootUsage === undefined || (rootUsage & KEY_USAGE.keyCertSign) !== 0,
    'chain',
    'the IACA root key usage lacks keyCertSign',
  );
  trail.ensure(!leaf.ca, 'chain', 'the document signer certificate must not be a CA');
  const leafUsage = keyUsageOf(leaf);
  trail.ensure(
    leafUsage !== undefined && (leafUsage & KEY_USAGE.digitalSignature) !== 0,
    'chain',
    'the document signer key usage lacks digitalSignature',
  );
  trail.ensure(
    (leaf.keyUsage ?? []).includes(MDL_DS_EKU),
    'chain',
    `the document signer lacks extended key usage ${MDL_DS_EKU}`,
  );
  return { leaf, root };
}
