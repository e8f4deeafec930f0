import type { Block, Inline, PageDocument } from './document.ts';

/**
 * Markdown is a context like HTML: a value shown in it is escaped for it. A reflected value can
 * neither end its code span, start a block (a heading, a list, a quote) nor split a table row.
 */
const LINE_BREAKS = /\r\n|[\n\r\u0085\u2028\u2029]/g;
const oneLine = (s: string) => s.replace(LINE_BREAKS, ' ');
const longestBacktickRun = (s: string) => Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length));

/** Text: inline markup characters escaped, entity references neutralised, line breaks as spaces. */
const escapeMd = (s: string) => oneLine(s).replace(/([\\`*_[\]<>|~])/g, '\\$1').replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&');

/** A line that would open a block (`#`, `>`, `-`, `+`, `=`, `1.`, indentation) is made to read as text. */
const escapeBlockStart = (line: string) => line.trimStart().replace(/^([#>+=-])/, '\\$1').replace(/^(\d{1,9})([.)])/, '$1\\$2');

/** A code span whose fence is longer than any backtick run inside (CommonMark 6.1); `|` escaped in tables (GFM). */
function codeSpan(text: string, inTable: boolean): string {
  let t = oneLine(text);
  if (inTable) t = t.replace(/\|/g, '\\|');
  if (t === '') return '';
  const fence = '`'.repeat(longestBacktickRun(t) + 1);
  const pad = t.startsWith('`') || t.endsWith('`') || (t.startsWith(' ') && t.endsWith(' ') && t.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

const escapeHref = (href: string) => href.replace(/[()<>|\s\\]/g, encodeURIComponent);

function inline(i: Inline, inTable: boolean): string {
  if (typeof i === 'string') return escapeMd(i);
  if ('code' in i) return codeSpan(i.code, inTable);
  if ('link' in i) return `[${escapeMd(i.link)}](${escapeHref(i.href)})`;
  if ('strong' in i) return `**${escapeMd(i.strong)}**`;
  return `*${escapeMd(i.em)}*`;
}
const inlines = (list: Inline[], inTable = false) => escapeBlockStart(list.map((i) => inline(i, inTable)).join(''));

function codeBlock(raw: string, lang = ''): string {
  const text = raw.replace(/\r\n?/g, '\n');
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${oneLine(lang).replace(/[`\s]/g, '')}\n${text}\n${fence}`;
}

function block(b: Block): string {
  switch (b.kind) {
    case 'heading':
      return `${'#'.repeat(b.level)} ${escapeMd(b.text)}`;
    case 'paragraph':
      return inlines(b.inlines);
    case 'list':
      return b.items.map((item, i) => `${b.ordered ? `${i + 1}.` : '-'} ${inlines(item)}`).join('\n');
    case 'code':
      return codeBlock(b.text, b.lang);
    case 'table':
      return [`| ${b.head.map(escapeMd).join(' | ')} |`, `|${b.head.map(() => '---').join('|')}|`, ...b.rows.map((r) => `| ${r.map((c) => inlines(c, true)).join(' | ')} |`)].join('\n');
    case 'notice':
      return `> ${inlines(b.inlines)}`;
    case 'figure':
    case 'html':
      return b.markdown.map(block).join('\n\n');
  }
}

export function renderMarkdown(doc: PageDocument): string {
  return `${doc.blocks.map(block).join('\n\n')}\n`;
}
