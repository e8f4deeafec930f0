import type { X509Certificate } from 'node:crypto';
import { invalidRequest } from '../errors.ts';
import { NS } from './constants.ts';
import { decryptAssertion } from './encryption.ts';
import { certificateFromBase64 } from './keys.ts';
import { MetadataRefused, readMetadata } from './metadata.ts';
import { inflateBounded, readRedirect, RedirectRefused, verifyRedirectSignature } from './redirect-binding.ts';
import { verifyElementSignature } from './signature.ts';
import { attr, elementsNamed, parseXml, serializeXml, XmlRefused } from './xml.ts';

const CORE = 'https://docs.oasis-open.org/security/saml/v2.0/saml-core-2.0-os.pdf';
const BINDINGS = 'https://docs.oasis-open.org/security/saml/v2.0/saml-bindings-2.0-os.pdf';
const METADATA = 'https://docs.oasis-open.org/security/saml/v2.0/saml-metadata-2.0-os.pdf';

/** Where each element is defined: [document, section]. */
const SECTIONS: ReadonlyMap<string, [string, string]> = new Map([
  ['AuthnRequest', [CORE, '3.4.1']],
  ['Response', [CORE, '3.3.3']],
  ['LogoutRequest', [CORE, '3.7.1']],
  ['LogoutResponse', [CORE, '3.7.2']],
  ['Status', [CORE, '3.2.2.1']],
  ['StatusCode', [CORE, '3.2.2.2']],
  ['NameIDPolicy', [CORE, '3.4.1.1']],
  ['RequestedAuthnContext', [CORE, '3.3.2.2.1']],
  ['Assertion', [CORE, '2.3.3']],
  ['EncryptedAssertion', [CORE, '2.3.4']],
  ['Issuer', [CORE, '2.2.5']],
  ['NameID', [CORE, '2.2.3']],
  ['Subject', [CORE, '2.4.1']],
  ['SubjectConfirmation', [CORE, '2.4.1.1']],
  ['SubjectConfirmationData', [CORE, '2.4.1.2']],
  ['Conditions', [CORE, '2.5.1']],
  ['AudienceRestriction', [CORE, '2.5.1.4']],
  ['AuthnStatement', [CORE, '2.7.2']],
  ['AttributeStatement', [CORE, '2.7.3']],
  ['Attribute', [CORE, '2.7.3.1']],
  ['SessionIndex', [CORE, '3.7.1']],
  ['Signature', [CORE, '5']],
  ['EntityDescriptor', [METADATA, '2.3.2']],
  ['IDPSSODescriptor', [METADATA, '2.4.3']],
  ['SPSSODescriptor', [METADATA, '2.4.4']],
  ['KeyDescriptor', [METADATA, '2.4.1.1']],
]);

export interface SamlDecodeInput {
  /** Raw XML, base64 (HTTP-POST), DEFLATE+base64, or a whole HTTP-Redirect URL. */
  message: string;
  /** A certificate (PEM or base64 DER) to check signatures with. */
  certificate?: string;
  /** Metadata XML whose signing certificates check the signatures. */
  metadata?: string;
}

/** What the decoder may use besides the input: the certificates it knows and the keys that decrypt. */
export interface DecodeKeys {
  certificates: ReadonlyArray<{ name: string; certificate: X509Certificate }>;
  decryptionKeys: readonly string[];
}

type Encoding = 'xml' | 'base64' | 'deflate+base64' | 'redirect-url';

/** Turns the pasted text into XML, saying how it was encoded. */
function decodeText(text: string): { xml: string; encoding: Encoding; query?: string } {
  const trimmed = text.trim();
  if (/^https?:\/\//.test(trimmed)) {
    const query = trimmed.slice(trimmed.indexOf('?') + 1);
    return { xml: readRedirect(query).xml, encoding: 'redirect-url', query };
  }
  if (trimmed.startsWith('<')) return { xml: trimmed, encoding: 'xml' };
  const bytes = Buffer.from(decodeURIComponent(trimmed), 'base64');
  const text64 = bytes.toString('utf8');
  if (/^\s*</.test(text64)) return { xml: text64, encoding: 'base64' };
  return { xml: inflateBounded(bytes), encoding: 'deflate+base64' };
}

const link = (name: string) => {
  const [url, section] = SECTIONS.get(name) ?? [];
  return url
    ? { spec: url.endsWith('core-2.0-os.pdf') ? 'SAML core' : 'SAML metadata', section: `§${section}`, url }
    : undefined;
};

/**
 * The looking glass for SAML: the XML, each element with its section, each signature with what its
 * reference covers and its verdict, and the decrypted assertion where a key of ours opens it.
 */
export async function decodeSaml(input: SamlDecodeInput, keys: DecodeKeys, nowMs: number) {
  let decoded: ReturnType<typeof decodeText>;
  let doc: Document;
  try {
    decoded = decodeText(input.message);
    doc = parseXml(decoded.xml);
  } catch (error) {
    if (error instanceof XmlRefused || error instanceof RedirectRefused)
      throw invalidRequest(`${error.check}: ${error.message}`);
    throw invalidRequest('The message is not XML, base64, DEFLATE+base64 or an HTTP-Redirect URL');
  }
  const trusted = trustedCertificates(input, keys, nowMs);
  const root = doc.documentElement;
  const elements: Array<{ element: string; id?: string; spec?: string; section?: string; url?: string }> = [];
  for (const element of Array.from(doc.getElementsByTagName('*'))) {
    const where = link(element.localName);
    if (where)
      elements.push({
        element: element.nodeName,
        ...(attr(element, 'ID') ? { id: attr(element, 'ID') } : {}),
        ...where,
      });
  }
  const signatures = elementsNamed(doc, NS.dsig, 'Signature').map((signature) => {
    const parent = signature.parentNode as Element;
    const reference = attr(elementsNamed(signature, NS.dsig, 'Reference')[0], 'URI') ?? '';
    const covered = Array.from(doc.getElementsByTagName('*')).filter((e) => `#${attr(e, 'ID')}` === reference);
    const verdict = trusted.length
      ? (() => {
          for (const { name, certificate } of trusted) {
            const result = verifyElementSignature(decoded.xml, parent, [certificate]);
            if (result.ok) return { verdict: 'valid', certificate: name };
            if (result.check !== 'signature_invalid')
              return { verdict: 'refused', check: result.check, reason: result.reason };
          }
          return { verdict: 'invalid', reason: 'No given or known certificate verifies it' };
        })()
      : { verdict: 'not_checked', reason: 'No certificate or metadata was given' };
    return {
      in: parent.nodeName,
      reference,
      covers: covered.map((e) => e.nodeName),
      covers_its_parent: covered.length === 1 && covered[0] === parent,
      algorithm: attr(elementsNamed(signature, NS.dsig, 'SignatureMethod')[0], 'Algorithm'),
      digest: attr(elementsNamed(signature, NS.dsig, 'DigestMethod')[0], 'Algorithm'),
      ...verdict,
    };
  });
  const redirectSignature = decoded.query ? readRedirect(decoded.query).signature : undefined;
  const encrypted = elementsNamed(doc, NS.assertion, 'EncryptedAssertion')[0];
  let decrypted: string | undefined;
  if (encrypted && keys.decryptionKeys.length)
    decrypted = await decryptAssertion(encrypted, keys.decryptionKeys).then(serializeXml, () => undefined);
  return {
    encoding: decoded.encoding,
    binding:
      decoded.encoding === 'redirect-url' || decoded.encoding === 'deflate+base64'
        ? { name: 'HTTP-Redirect', section: '§3.4', url: BINDINGS }
        : decoded.encoding === 'base64'
          ? { name: 'HTTP-POST', section: '§3.5', url: BINDINGS }
          : undefined,
    message: root.nodeName,
    xml: decoded.xml,
    elements,
    signatures,
    ...(redirectSignature
      ? {
          query_signature: {
            algorithm: redirectSignature.sigAlg,
            verdict: trusted.length
              ? verifyRedirectSignature(
                  redirectSignature,
                  trusted.map((t) => t.certificate),
                )
              : 'not_checked',
          },
        }
      : {}),
    ...(encrypted ? { decrypted_assertion: decrypted ?? null } : {}),
  };
}

/** The certificates signatures are checked with: the one given, the metadata's, else the ones we know. */
function trustedCertificates(input: SamlDecodeInput, keys: DecodeKeys, nowMs: number) {
  if (input.certificate) {
    const certificate = certificateFromBase64(input.certificate.replace(/-----(BEGIN|END) CERTIFICATE-----/g, ''));
    if (!certificate) throw invalidRequest('certificate is not an X.509 certificate (PEM or base64 DER)');
    return [{ name: 'the certificate given', certificate }];
  }
  if (input.metadata) {
    try {
      return readMetadata(input.metadata, nowMs).signing.map((certificate) => ({
        name: 'the metadata given',
        certificate,
      }));
    } catch (error) {
      if (error instanceof MetadataRefused || error instanceof XmlRefused)
        throw invalidRequest(`metadata: ${error.message}`);
      throw error;
    }
  }
  return [...keys.certificates];
}
