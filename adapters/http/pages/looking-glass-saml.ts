import { OAuthError } from '../../../services/errors.ts';
import type { Block } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import type { SamlPart } from '../main/graph-saml.ts';
import { h, p } from './blocks.ts';

/** The looking glass's SAML form: a message pasted raw, base64, DEFLATE+base64 or as a Redirect URL. */
export function samlForm(text = '', certificate = ''): Block {
  return {
    kind: 'html',
    html: `<h2 id="saml-form">Decode SAML</h2><form method="post" action="/looking-glass#saml-form"><label for="saml">A SAML message: XML, base64 (HTTP-POST), DEFLATE+base64 or a whole HTTP-Redirect URL</label><textarea id="saml" name="saml" spellcheck="false" autocomplete="off">${escapeHtml(text)}</textarea><label for="saml_certificate">Certificate to check signatures with (PEM, optional; else the ones this sandbox knows)</label><textarea id="saml_certificate" name="saml_certificate" spellcheck="false" autocomplete="off">${escapeHtml(certificate)}</textarea><button type="submit">Decode SAML</button></form>`,
    markdown: [
      h(2, 'Decode SAML'),
      p(
        'SAML: ',
        { code: 'POST /looking-glass' },
        ' with the form field ',
        { code: 'saml' },
        ', or ',
        {
          code: 'POST /api/lookingglass/decode/saml',
        },
        ' with ',
        { code: '{message, certificate?}' },
      ),
    ],
  };
}

/** The decoded message as the page shows it: elements with their sections, signatures, the XML. */
export async function samlBlocks(saml: SamlPart, text: string, certificate?: string): Promise<Block[]> {
  let decoded: Awaited<ReturnType<SamlPart['decode']>>;
  try {
    decoded = await saml.decode({ message: text, ...(certificate?.trim() ? { certificate } : {}) });
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return [{ kind: 'notice', tone: 'error', inlines: [error.description] }];
  }
  return [
    h(2, `SAML: ${decoded.message} (${decoded.encoding})`),
    {
      kind: 'table',
      head: ['Signature in', 'Reference', 'Covers', 'Algorithm', 'Verdict'],
      rows: decoded.signatures.map((s) => [
        [{ code: s.in }],
        [{ code: s.reference }],
        [s.covers.join(', ') + (s.covers_its_parent ? ' (its own element)' : ' (NOT its own element)')],
        [s.algorithm ?? '?'],
        [`${s.verdict}${'reason' in s && s.reason ? `: ${s.reason}` : ''}`],
      ]),
    },
    {
      kind: 'table',
      head: ['Element', 'ID', 'Defined in'],
      rows: decoded.elements.map((e) => [
        [{ code: e.element }],
        [e.id ?? ''],
        e.url ? [{ link: `${e.spec} ${e.section}`, href: e.url }] : [''],
      ]),
    },
    { kind: 'code', lang: 'xml', text: decoded.xml },
    ...(decoded.decrypted_assertion
      ? [h(3, 'The assertion, decrypted'), { kind: 'code', lang: 'xml', text: decoded.decrypted_assertion } as Block]
      : []),
  ];
}
