import { highlightJson } from './highlight.ts';
import type { Block, Inline, PageDocument } from './document.ts';

export const escapeHtml = (s: unknown) =>
  String(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

function inline(i: Inline): string {
  if (typeof i === 'string') return escapeHtml(i);
  if ('code' in i) return `<code>${escapeHtml(i.code)}</code>`;
  if ('link' in i) return `<a href="${escapeHtml(i.href)}">${escapeHtml(i.link)}</a>`;
  if ('strong' in i) return `<strong>${escapeHtml(i.strong)}</strong>`;
  return `<em>${escapeHtml(i.em)}</em>`;
}
const inlines = (list: Inline[]) => list.map(inline).join('');

function block(b: Block): string {
  switch (b.kind) {
    case 'heading':
      return `<h${b.level}${b.id ? ` id="${escapeHtml(b.id)}"` : ''}>${escapeHtml(b.text)}</h${b.level}>`;
    case 'paragraph':
      return `<p>${inlines(b.inlines)}</p>`;
    case 'list': {
      const tag = b.ordered ? 'ol' : 'ul';
      return `<${tag}>${b.items.map((item) => `<li>${inlines(item)}</li>`).join('')}</${tag}>`;
    }
    case 'code':
      return `<pre tabindex="0"><code${b.lang ? ` class="language-${escapeHtml(b.lang)}"` : ''}>${b.lang === 'json' ? highlightJson(b.text) : escapeHtml(b.text)}</code></pre>`;
    case 'table':
      return `<table><thead><tr>${b.head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${b.rows.map((r, i) => `<tr${b.rowIds?.[i] ? ` id="${escapeHtml(b.rowIds[i])}"` : ''}>${r.map((c) => `<td>${inlines(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
    case 'notice':
      return `<p class="notice ${b.tone === 'error' ? 'error' : b.tone === 'ok' ? 'ok' : ''}" role="${b.tone === 'error' ? 'alert' : 'note'}">${inlines(b.inlines)}</p>`;
    case 'figure':
      return `<figure>${b.html}<figcaption>${escapeHtml(b.caption)}</figcaption></figure>`;
    case 'html':
      return b.html;
  }
}

/** The page body; the layout (head, header, footer) wraps it. */
export function renderHtmlBody(doc: PageDocument): string {
  return doc.blocks.map(block).join('\n');
}
