import type { Block, Inline, PageDocument } from './document.ts';

/**
 * Markdown is a context like HTML: a value shown in it is escaped for it. A reflected value can
 * neither end its code span, start a block (a heading, a list, a quote) nor split a table row.
 */
const LINE_BREAKS = /\r\n|[\n\r\u0085\u2028\u2029]/g;
const oneLine = (s: string) => s.replace(LINE_BREAKS, ' ');
const longestBacktickRun = (s: string) => Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length));

/**
 * How many backtick runs a line of markdown holds (text and code spans together). A lone run can never
 * open a code span; with any other run in the line, even one an escape or a fence sits next to, every
 * run of text is escaped (the escaped backslash of one run can join the next run's backticks).
 */
type BacktickRuns = number;
const countBacktickRuns = (texts: string[]): BacktickRuns =>
  texts.reduce((n, text) => n + (text.match(/`+/g)?.length ?? 0), 0);

/** Neither whitespace nor punctuation (CommonMark 6.2): an underscore run between two of these cannot open or close emphasis. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const intraword = (text: string, at: number, length: number) =>
  WORD_CHARACTER.test(text[at - 1] ?? '') && WORD_CHARACTER.test(text[at + length] ?? '');

/**
 * Text: escaped only where a character would start markup (CommonMark): `*`, brackets, `<`, `|`, `~`
 * and backslashes always; `_` unless it stands inside a word (`identity_assertion` stays as it is); a
 * backtick run unless it is the only one in its line. Entity references
 * are neutralised and line breaks become spaces.
 */
function escapeMd(text: string, runs: BacktickRuns = countBacktickRuns([text])): string {
  return oneLine(text)
    .replace(/[\\*[\]<>|~]/g, '\\$&')
    .replace(/_+/g, (run: string, at: number, whole: string) =>
      intraword(whole, at, run.length) ? run : run.replace(/_/g, '\\_'),
    )
    .replace(/`+/g, (run: string) => (runs > 1 ? run.replace(/`/g, '\\`') : run))
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&');
}

/** A line that would open a block (`#`, `>`, `-`, `+`, `=`, `1.`, indentation) is made to read as text. */
const escapeBlockStart = (line: string) =>
  line
    .trimStart()
    .replace(/^([#>+=-])/, '\\$1')
    .replace(/^(\d{1,9})([.)])/, '$1\\$2');

/** A code span whose fence is longer than any backtick run inside (CommonMark 6.1); `|` escaped in tables (GFM). */
function codeSpan(text: string, inTable: boolean): string {
  let t = oneLine(text);
  if (inTable) t = t.replace(/\|/g, '\\|');
  if (t === '') return '';
  const fence = '`'.repeat(longestBacktickRun(t) + 1);
  const pad =
    t.startsWith('`') || t.endsWith('`') || (t.startsWith(' ') && t.endsWith(' ') && t.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

const escapeHref = (href: string) => href.replace(/[()<>|\s\\]/g, encodeURIComponent);

function inline(i: Inline, inTable: boolean, runs: BacktickRuns): string {
  if (typeof i === 'string') return escapeMd(i, runs);
  if ('code' in i) return codeSpan(i.code, inTable);
  if ('link' in i) return `[${escapeMd(i.link, runs)}](${escapeHref(i.href)})`;
  if ('strong' in i) return `**${escapeMd(i.strong, runs)}**`;
  return `*${escapeMd(i.em, runs)}*`;
}

/** The raw text an inline puts on the line, for counting backtick runs (a code span counts with its fences). */
const lineText = (i: Inline, inTable: boolean) =>
  typeof i === 'string'
    ? i
    : 'code' in i
      ? codeSpan(i.code, inTable)
      : 'link' in i
        ? i.link
        : 'strong' in i
          ? i.strong
          : i.em;

function inlines(list: Inline[], inTable = false): string {
  const runs = countBacktickRuns(list.map((i) => lineText(i, inTable)));
  return escapeBlockStart(list.map((i) => inline(i, inTable, runs)).join(''));
}

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
      return [
        `| ${b.head.map((cell) => escapeMd(cell)).join(' | ')} |`,
        `|${b.head.map(() => '---').join('|')}|`,
        ...b.rows.map((r) => `| ${r.map((c) => inlines(c, true)).join(' | ')} |`),
      ].join('\n');
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
