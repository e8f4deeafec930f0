import type { Inline } from '../pages/document.ts';

/** Where each cited specification is published (section anchors where the document has them). */
const DOCUMENTS: ReadonlyArray<{ pattern: RegExp; url: (section?: string) => string }> = [
  {
    pattern: /^OpenID4VCI 1\.0$/,
    url: (s) => `https://openid.net/specs/openid-4-verifiable-credential-issuance-1_0.html${anchor(s)}`,
  },
  {
    pattern: /^OpenID4VP 1\.0$/,
    url: (s) => `https://openid.net/specs/openid-4-verifiable-presentations-1_0.html${anchor(s)}`,
  },
  { pattern: /^OpenID Connect Core$/, url: () => 'https://openid.net/specs/openid-connect-core-1_0.html' },
  {
    pattern: /^OpenID Connect Front-Channel Logout$/,
    url: () => 'https://openid.net/specs/openid-connect-frontchannel-1_0.html',
  },
  {
    pattern: /^SD-JWT VC$/,
    url: (s) => `https://datatracker.ietf.org/doc/html/draft-ietf-oauth-sd-jwt-vc${anchor(s)}`,
  },
  {
    pattern: /^Token Status List$/,
    url: (s) => `https://datatracker.ietf.org/doc/html/draft-ietf-oauth-status-list${anchor(s)}`,
  },
  {
    pattern: /^draft-ietf-oauth-attestation-based-client-auth$/,
    url: (s) => `https://datatracker.ietf.org/doc/html/draft-ietf-oauth-attestation-based-client-auth${anchor(s)}`,
  },
  { pattern: /^VC Data Model 1\.1$/, url: () => 'https://www.w3.org/TR/vc-data-model/' },
];
const DOCUMENT_NAMES =
  'RFC \\d+|OpenID4VCI 1\\.0|OpenID4VP 1\\.0|OpenID Connect Core|OpenID Connect Front-Channel Logout|SD-JWT VC|Token Status List|draft-ietf-oauth-attestation-based-client-auth|VC Data Model 1\\.1';
const CITATION = new RegExp(`^(${DOCUMENT_NAMES})(?: (§[\\d.]+|Appendix [A-Z](?:\\.\\d+)*))?$`);
const LEADING_DOCUMENT = new RegExp(`^(${DOCUMENT_NAMES})`);

/** `§4.1.4` → `#section-4.1.4`, `Appendix D` / `Appendix F.1` → `#appendix-D` / `#appendix-F.1` (xml2rfc anchors). */
function anchor(section?: string): string {
  if (!section) return '';
  const appendix = /^Appendix ([A-Z](?:\.\d+)*)$/.exec(section);
  if (appendix) return `#appendix-${appendix[1]}`;
  const numbered = /^§(\d+(?:\.\d+)*)$/.exec(section);
  return numbered ? `#section-${numbered[1]}` : '';
}

/** One citation (`RFC 7519 §4.1.4`, `OpenID4VP 1.0 §5.2`, `RFC 9068`) as a link, or plain text when its document is not public. */
function cite(citation: string): string | { link: string; href: string } {
  const m = CITATION.exec(citation.trim());
  if (!m) return citation.trim();
  const [, doc, section] = m;
  const rfc = /^RFC (\d+)$/.exec(doc);
  const href = rfc
    ? `https://www.rfc-editor.org/rfc/rfc${rfc[1]}.html${anchor(section)}`
    : DOCUMENTS.find((d) => d.pattern.test(doc))!.url(section);
  return { link: citation.trim(), href };
}

/**
 * A claim's reference as inlines, each citation linked to its section: `RFC 7519 §4.1.4` → the RFC
 * Editor's page at `#section-4.1.4`. A bare section after a comma (`…§5.2, §14.1`) belongs to the
 * document before it.
 */
export function referenceInlines(reference: string): Inline[] {
  const out: Inline[] = [];
  let lastDocument = '';
  for (const [i, raw] of reference.split(',').entries()) {
    const part = raw.trim();
    const full = /^§|^Appendix /.test(part) && lastDocument ? `${lastDocument} ${part}` : part;
    const doc = LEADING_DOCUMENT.exec(full)?.[1];
    if (doc) lastDocument = doc;
    if (i > 0) out.push(', ');
    const linked = cite(full);
    out.push(typeof linked === 'string' ? part : { link: part, href: linked.href });
  }
  return out;
}
