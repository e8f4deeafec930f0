import { createHmac, type BinaryLike, type KeyLike, type X509Certificate } from 'node:crypto';
import { SignedXml, type SignatureAlgorithm } from 'xml-crypto';
import { ACCEPTED_DIGEST_ALGS, ACCEPTED_SIGNATURE_ALGS, ALG, NS } from './constants.ts';
import { attr, childElements, elementsWithId, onlyChild, parseXml } from './xml.ts';

/** An RSA key and its certificate, in PEM. */
export interface PemKeyPair {
  privateKeyPem: string;
  certificatePem: string;
}

/**
 * Signs the element whose `ID` is `id` with an enveloped XML signature (RSA-SHA256, SHA-256 digest,
 * exclusive canonicalization; SAML core §5.4). The signature goes right after the element's `Issuer`
 * (its schema's place), or first when it has none (metadata).
 */
export function signElement(
  xml: string,
  id: string,
  key: PemKeyPair,
  afterIssuer = true,
  /** Other algorithms: only the attack lab asks for them (a SHA-1 or HMAC downgrade). */
  algorithms: { signature: string; digest: string; hmacKey?: string } = {
    signature: ALG.rsaSha256,
    digest: ALG.sha256,
  },
): string {
  const signer = new SignedXml({
    privateKey: algorithms.hmacKey ?? key.privateKeyPem,
    publicCert: key.certificatePem,
    signatureAlgorithm: algorithms.signature,
    canonicalizationAlgorithm: ALG.excC14n,
  });
  // HMAC-SHA1 keyed with a public certificate: the key-confusion forgery, built only by the attack lab.
  if (algorithms.hmacKey) signer.SignatureAlgorithms[algorithms.signature] = HmacForgery;
  const target = `//*[@ID='${id}']`;
  signer.addReference({ xpath: target, digestAlgorithm: algorithms.digest, transforms: [ALG.enveloped, ALG.excC14n] });
  signer.computeSignature(xml, {
    prefix: 'ds',
    location: afterIssuer
      ? { reference: `${target}/*[local-name(.)='Issuer']`, action: 'after' }
      : { reference: target, action: 'prepend' },
  });
  return signer.getSignedXml();
}

/** xml-crypto's extension point for a signature algorithm: HMAC-SHA1 (never accepted on verification here). */
class HmacForgery implements SignatureAlgorithm {
  getSignature(signedInfo: BinaryLike, key: KeyLike): string {
    return createHmac('sha1', key as string)
      .update(signedInfo)
      .digest('base64');
  }
  verifySignature(): boolean {
    return false;
  }
  getAlgorithmName(): string {
    return 'http://www.w3.org/2000/09/xmldsig#hmac-sha1';
  }
}

/** The verdict on one element's signature: what was signed (parsed again from its canonical form), or the named check that failed. */
export type SignatureVerdict =
  { ok: true; signed: Element; certificate: X509Certificate } | { ok: false; check: SignatureCheck; reason: string };

type SignatureCheck =
  'signature_missing' | 'signature_algorithm' | 'signature_reference' | 'signature_duplicate_id' | 'signature_invalid';

const fail = (check: SignatureCheck, reason: string): SignatureVerdict => ({ ok: false, check, reason });

/**
 * Checks the enveloped signature of `element` (SAML core §5.4) with one of `certificates`:
 * exactly one `ds:Signature` child; RSA-SHA256 and SHA-256 only (SHA-1 and HMAC are refused); one
 * reference, whose URI names this element's `ID`, an ID no other element of the document carries;
 * only the enveloped and exclusive canonicalization transforms. On success the element is parsed again
 * from the canonical XML the signature covers, so that what is consumed is what was signed: a copy
 * moved elsewhere in the document (signature wrapping) is never read.
 */
export function verifyElementSignature(
  xml: string,
  element: Element,
  certificates: readonly X509Certificate[],
): SignatureVerdict {
  const signatures = childElements(element, NS.dsig, 'Signature');
  if (signatures.length === 0) return fail('signature_missing', `The ${element.localName} is not signed`);
  if (signatures.length > 1) return fail('signature_reference', `The ${element.localName} has more than one signature`);
  const signature = signatures[0];
  const signedInfo = onlyChild(signature, NS.dsig, 'SignedInfo');
  if (!signedInfo) return fail('signature_reference', 'The signature has no SignedInfo');
  const method = attr(onlyChild(signedInfo, NS.dsig, 'SignatureMethod'), 'Algorithm') ?? '';
  if (!ACCEPTED_SIGNATURE_ALGS.includes(method))
    return fail(
      'signature_algorithm',
      `The signature algorithm ${method || '(none)'} is refused; only RSA-SHA256 is accepted`,
    );
  const canon = attr(onlyChild(signedInfo, NS.dsig, 'CanonicalizationMethod'), 'Algorithm');
  if (canon !== ALG.excC14n) return fail('signature_algorithm', `The canonicalization ${canon ?? '(none)'} is refused`);
  const references = childElements(signedInfo, NS.dsig, 'Reference');
  if (references.length !== 1) return fail('signature_reference', 'The signature must have exactly one reference');
  const reference = references[0];
  const digest = attr(onlyChild(reference, NS.dsig, 'DigestMethod'), 'Algorithm') ?? '';
  if (!ACCEPTED_DIGEST_ALGS.includes(digest))
    return fail(
      'signature_algorithm',
      `The digest algorithm ${digest || '(none)'} is refused; only SHA-256 is accepted`,
    );
  const id = attr(element, 'ID');
  if (!id || attr(reference, 'URI') !== `#${id}`)
    return fail(
      'signature_reference',
      `The signature's reference does not name this ${element.localName} (URI must be #ID)`,
    );
  if (elementsWithId(element.ownerDocument, id).length !== 1)
    return fail('signature_duplicate_id', `More than one element carries the ID ${id}`);
  const transforms = childElements(onlyChild(reference, NS.dsig, 'Transforms') ?? reference, NS.dsig, 'Transform').map(
    (t) => attr(t, 'Algorithm'),
  );
  if (transforms.some((t) => t !== ALG.enveloped && t !== ALG.excC14n))
    return fail(
      'signature_reference',
      'Only the enveloped-signature and exclusive canonicalization transforms are accepted',
    );
  for (const certificate of certificates) {
    const checker = new SignedXml({ publicCert: certificate.toString(), getCertFromKeyInfo: () => null });
    checker.loadSignature(signature);
    let valid = false;
    try {
      valid = checker.checkSignature(xml);
    } catch {
      valid = false;
    }
    if (!valid) continue;
    const [signedXml] = checker.getSignedReferences();
    const signed = signedXml ? parseXml(signedXml).documentElement : undefined;
    if (!signed || signed.localName !== element.localName || attr(signed, 'ID') !== id)
      return fail('signature_reference', 'The signed content is not the element consumed');
    return { ok: true, signed, certificate };
  }
  return fail(
    'signature_invalid',
    `The ${element.localName}'s signature does not verify with the expected certificate`,
  );
}
