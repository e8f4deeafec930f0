import { OAuthError } from '../../../services/errors.ts';
import type { LookingGlass } from '../../../services/lookingglass/service.ts';
import type { Block, Inline } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { h, p } from './blocks.ts';

type Json = Record<string, any>;

/** The looking glass's status list form: a Status List Token or W3C list credential, and an index. */
export function statusListForm(token = '', idx = ''): Block {
  return {
    kind: 'html',
    html: `<h2 id="status-list-form">Decode a status list</h2><form method="post" action="/looking-glass#status-list-form"><label for="status-list">Status List Token (JWT, or CWT as base64url or hex) or W3C BitstringStatusListCredential (JWT)</label><textarea id="status-list" name="status_list" spellcheck="false" autocomplete="off">${escapeHtml(token)}</textarea><label for="status-idx">Index (optional)</label><input id="status-idx" name="idx" inputmode="numeric" pattern="(0|[1-9][0-9]{0,8})" value="${escapeHtml(idx)}"><button type="submit">Decode the list</button></form>`,
    markdown: [
      h(2, 'Decode a status list'),
      p(
        'Status lists: ',
        { code: 'POST /looking-glass' },
        ' with the form fields ',
        { code: 'status_list' },
        ' and optionally ',
        { code: 'idx' },
        ', or ',
        { code: 'POST /api/lookingglass/decode/status-list?idx=<n>' },
      ),
    ],
  };
}

const timeCell = (t: { date: string; relative: string } | undefined): Inline[] =>
  t ? [`${t.date} (${t.relative})`] : ['—'];

/** A decoded list as the page shows it: signature, what it is, the count of each value, the value at the index. */
export async function statusListBlocks(glass: LookingGlass, text: string, idxText: string): Promise<Block[]> {
  const blocks: Block[] = [h(2, 'Status list')];
  const idx = /^(0|[1-9][0-9]{0,8})$/.test(idxText.trim()) ? Number(idxText.trim()) : undefined;
  if (idxText.trim() && idx === undefined)
    return [...blocks, { kind: 'notice', tone: 'error', inlines: ['The index is not a whole number from 0'] }];
  let d: Json;
  try {
    d = (await glass.decodeStatusList(text.trim(), idx)) as Json;
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return [...blocks, { kind: 'notice', tone: 'error', inlines: [error.description] }];
  }
  const signature = d.signature as { verified?: boolean; detail?: string; key_source?: string } | undefined;
  blocks.push(p('Format: ', { code: String(d.format) }, ` (${String(d.reference)})`), {
    kind: 'notice',
    tone: signature?.verified ? 'ok' : 'warning',
    inlines: [
      `Signature: ${signature?.verified ? 'verified' : 'not verified'}`,
      ...(signature?.detail ? [` — ${signature.detail}`] : signature?.key_source ? [` (${signature.key_source})`] : []),
    ],
  });
  if (Array.isArray(d.warnings)) blocks.push({ kind: 'list', items: d.warnings.map((w: string) => [w]) });
  const at = d.at as { idx: number; value?: number; status?: string; detail?: string } | undefined;
  if (at)
    blocks.push({
      kind: 'notice',
      tone: at.status === 'VALID' ? 'ok' : at.status ? 'warning' : 'info',
      inlines: at.status
        ? [`Index ${at.idx}: `, { strong: `${at.status} (${at.value})` }]
        : [`Index ${at.idx}: ${String(at.detail)}`],
    });
  blocks.push({
    kind: 'table',
    head: ['Field', 'Value'],
    rows: [
      [['Subject (the list URI)'], [{ code: String(d.sub ?? d.id ?? '—') }]],
      ...(d.issuer ? [[['Issuer'], [{ code: String(d.issuer) }]] as Inline[][]] : []),
      ...(d.status_purpose ? [[['Status purpose'], [String(d.status_purpose)]] as Inline[][]] : []),
      [['Bits per entry'], [String(d.bits)]],
      [['Entries'], [String(d.size)]],
      ...(d.iat ? [[['Issued'], timeCell(d.iat)] as Inline[][]] : []),
      ...(d.exp ? [[['Expires'], timeCell(d.exp)] as Inline[][]] : []),
      ...(d.ttl
        ? [
            [
              ['Cache for (ttl)'],
              [d.ttl.seconds !== undefined ? `${d.ttl.seconds} s` : `${d.ttl.milliseconds} ms`],
            ] as Inline[][],
          ]
        : []),
    ],
  });
  blocks.push(h(3, 'Entries by value'), {
    kind: 'table',
    head: ['Value', 'Count'],
    rows: Object.entries(d.counts as Record<string, number>).map(([name, n]) => [[name], [String(n)]]),
  });
  if (d.detail) blocks.push(p(String(d.detail)));
  if (d.header) blocks.push(h(3, 'Header'), { kind: 'code', lang: 'json', text: JSON.stringify(d.header, null, 2) });
  return blocks;
}

/**
 * A credential's status in one word, from the looking glass's resolution of its references: the worst of
 * them (revoked, suspended, unknown), valid when every list says VALID.
 */
export function statusVerdict(status: Json | undefined): { word: string; detail: string } | undefined {
  const references = status?.references as Json[] | undefined;
  if (!references?.length) return undefined;
  const failed = references.map((r) => r.failed as string | undefined);
  const where = references.map((r) => `index ${r.idx} of ${r.uri ?? r.status_list_credential}`).join('; ');
  if (failed.includes('credential_revoked')) return { word: 'revoked', detail: where };
  if (failed.includes('credential_suspended')) return { word: 'suspended', detail: where };
  const unavailable = references.find((r) => r.failed === 'status_unavailable');
  if (unavailable) return { word: 'unknown', detail: `the list could not be checked: ${String(unavailable.reason)}` };
  return { word: 'valid', detail: where };
}
