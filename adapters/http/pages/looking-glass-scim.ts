import { OAuthError } from '../../../services/errors.ts';
import type { Block } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { decodeScim, type DecodedScim } from '../../../services/scim/explain.ts';
import { PATCH_SCHEMA } from '../../../services/scim/patch.ts';
import { h, p } from './blocks.ts';

/** The looking glass's SCIM form: a resource, a PATCH request or a filter (RFC 7643, RFC 7644). */
export function scimForm(text = ''): Block {
  return {
    kind: 'html',
    html: `<h2 id="scim-form">Decode SCIM</h2><form method="post" action="/looking-glass#scim-form"><label for="scim">A SCIM resource or PATCH request (JSON), or a filter such as <code>emails[type eq "work"]</code></label><textarea id="scim" name="scim" spellcheck="false" autocomplete="off">${escapeHtml(text)}</textarea><button type="submit">Decode SCIM</button></form>`,
    markdown: [
      h(2, 'Decode SCIM'),
      p(
        'SCIM: ',
        { code: 'POST /looking-glass' },
        ' with the form field ',
        { code: 'scim' },
        ', or ',
        {
          code: 'POST /api/lookingglass/decode/scim',
        },
        ' with ',
        { code: '{resource}' },
        ', ',
        { code: '{patch, resource?}' },
        ' or ',
        { code: '{filter}' },
      ),
    ],
  };
}

/** What the form field holds: JSON (a PatchOp, else a resource) or a filter. */
function inputOf(text: string): Parameters<typeof decodeScim>[0] {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return { filter: trimmed };
  const parsed = JSON.parse(trimmed) as Record<string, unknown>;
  const patch = Array.isArray(parsed.schemas) && parsed.schemas.includes(PATCH_SCHEMA);
  return patch ? { patch: parsed } : { resource: parsed };
}

/** The decoded SCIM input as the page shows it: a table of its parts and the whole answer as JSON. */
export function scimBlocks(text: string): Block[] {
  let decoded: DecodedScim;
  try {
    decoded = decodeScim(inputOf(text));
  } catch (error) {
    if (error instanceof SyntaxError) return [{ kind: 'notice', tone: 'error', inlines: ['The JSON does not parse'] }];
    if (!(error instanceof OAuthError)) throw error;
    return [{ kind: 'notice', tone: 'error', inlines: [error.description] }];
  }
  const blocks: Block[] = [h(2, `SCIM: ${decoded.format}`)];
  if (decoded.format === 'scim-resource')
    blocks.push({
      kind: 'table',
      head: ['Attribute', 'Value', 'Type', 'Mutability', 'Returned', 'Meaning'],
      rows: decoded.attributes.map((a) => [
        [{ code: a.path }],
        [JSON.stringify(a.value)],
        [a.type ?? '?'],
        [a.mutability ?? '?'],
        [a.returned ?? '?'],
        [a.meaning ?? 'not an attribute of this resource type'],
      ]),
    });
  if (decoded.format === 'scim-patch')
    blocks.push({
      kind: 'table',
      head: ['Operation', 'Path', 'Target', 'Meaning'],
      rows: decoded.operations.map((o) => [
        [o.op],
        [{ code: o.path ?? '(none)' }],
        [
          [
            o.target.attribute,
            o.target.filter && `[${o.target.filter}]`,
            o.target.sub_attribute && `.${o.target.sub_attribute}`,
          ]
            .filter(Boolean)
            .join('') || '(attributes of the value)',
        ],
        [o.target.meaning ?? ''],
      ]),
    });
  if (decoded.format === 'scim-resource' && decoded.warnings.length > 0)
    blocks.push({ kind: 'list', items: decoded.warnings.map((w) => [w]) });
  blocks.push({ kind: 'code', text: JSON.stringify(decoded, null, 2) });
  return blocks;
}
