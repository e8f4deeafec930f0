import MarkdownIt from 'markdown-it';
import type { Block, Inline } from './document.ts';

/**
 * Content files (protocols, flows, requirements) are markdown. They are parsed with markdown-it and
 * mapped onto the shared document model, so the HTML page and its markdown twin both come from the
 * same blocks: headings, paragraphs, lists, code, tables, quotes (as notices), links, code spans and
 * emphasis. Raw HTML in content is not passed through. Placeholders such as `{base}` are filled from
 * the running configuration first.
 */
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
type Token = ReturnType<typeof md.parse>[number];

/** The placeholders content may use, from the running configuration. */
export const contentPlaceholders = (config: { baseUrl: string; walletUrl: string }): Readonly<Record<string, string>> =>
  Object.freeze(
    Object.assign(Object.create(null) as Record<string, string>, {
      base: config.baseUrl,
      base_url: config.baseUrl,
      wallet_url: config.walletUrl,
    }),
  );

/** `{name}` placeholders replaced by their values; unknown names stay as they are. */
function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : whole));
}

/** Inline tokens as the model's inlines: nested emphasis flattens to its text, images to their alt text. */
function inlinesOf(tokens: readonly Token[]): Inline[] {
  const out: Inline[] = [];
  let i = 0;
  const textUntil = (close: string): string => {
    let text = '';
    for (i += 1; i < tokens.length && tokens[i].type !== close; i++)
      text += tokens[i].type === 'softbreak' || tokens[i].type === 'hardbreak' ? ' ' : tokens[i].content;
    return text;
  };
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    switch (t.type) {
      case 'text':
      case 'html_inline':
        if (t.content) out.push(t.content);
        break;
      case 'softbreak':
      case 'hardbreak':
        out.push(' ');
        break;
      case 'code_inline':
        out.push({ code: t.content });
        break;
      case 'link_open': {
        const href = String(t.attrGet('href') ?? '');
        out.push({ link: textUntil('link_close'), href });
        break;
      }
      case 'strong_open':
        out.push({ strong: textUntil('strong_close') });
        break;
      case 'em_open':
        out.push({ em: textUntil('em_close') });
        break;
      case 'image':
        out.push(t.content);
        break;
      default:
        if (t.content) out.push(t.content);
    }
  }
  return mergeText(out);
}

/** Adjacent plain strings joined, so the twins do not differ by where a parser split text. */
function mergeText(inlines: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const x of inlines) {
    if (typeof x === 'string' && typeof out[out.length - 1] === 'string')
      out[out.length - 1] = `${out[out.length - 1] as string}${x}`;
    else out.push(x);
  }
  return out;
}

/** One line of markdown (a description, a step) as inlines. */
export function markdownInlines(text: string, values: Readonly<Record<string, string>> = {}): Inline[] {
  const tokens = md.parseInline(fillPlaceholders(text, values), {});
  return inlinesOf(tokens[0]?.children ?? []);
}

/** The text of a heading or table cell (formatting dropped). */
const plain = (inlines: Inline[]) =>
  inlines
    .map((x) =>
      typeof x === 'string' ? x : 'code' in x ? x.code : 'link' in x ? x.link : 'strong' in x ? x.strong : x.em,
    )
    .join('');

/**
 * A markdown body as blocks. Headings sit below the page's own title: `#` and `##` become level 2,
 * deeper ones level 3.
 */
export function markdownBlocks(text: string, values: Readonly<Record<string, string>> = {}): Block[] {
  const tokens = md.parse(fillPlaceholders(text, values), {});
  const blocks: Block[] = [];
  let i = 0;
  /** The inlines of the next `inline` token before `close` (list items hold paragraphs). */
  const collectUntil = (close: string): Inline[] => {
    const parts: Inline[] = [];
    for (i += 1; i < tokens.length && tokens[i].type !== close; i++) {
      if (tokens[i].type === 'inline') {
        if (parts.length > 0) parts.push(' ');
        parts.push(...inlinesOf(tokens[i].children ?? []));
      }
    }
    return mergeText(parts);
  };
  for (; i < tokens.length; i++) {
    const t = tokens[i];
    switch (t.type) {
      case 'heading_open': {
        const depth = Number(t.tag.slice(1));
        blocks.push({ kind: 'heading', level: depth <= 2 ? 2 : 3, text: plain(collectUntil('heading_close')) });
        break;
      }
      case 'paragraph_open':
        blocks.push({ kind: 'paragraph', inlines: collectUntil('paragraph_close') });
        break;
      case 'bullet_list_open':
      case 'ordered_list_open': {
        const close = t.type === 'bullet_list_open' ? 'bullet_list_close' : 'ordered_list_close';
        const items: Inline[][] = [];
        let nesting = 0;
        for (i += 1; i < tokens.length && !(tokens[i].type === close && nesting === 0); i++) {
          const u = tokens[i];
          if (u.type === 'bullet_list_open' || u.type === 'ordered_list_open') nesting++;
          else if (u.type === 'bullet_list_close' || u.type === 'ordered_list_close') nesting--;
          else if (u.type === 'list_item_open' && nesting === 0) items.push([]);
          else if (u.type === 'inline' && items.length > 0) {
            const item = items[items.length - 1];
            if (item.length > 0) item.push(nesting > 0 ? '; ' : ' ');
            item.push(...inlinesOf(u.children ?? []));
          }
        }
        blocks.push({
          kind: 'list',
          ...(t.type === 'ordered_list_open' ? { ordered: true } : {}),
          items: items.map(mergeText),
        });
        break;
      }
      case 'fence':
      case 'code_block':
        blocks.push({
          kind: 'code',
          ...(t.info.trim() ? { lang: t.info.trim().split(/\s+/)[0] } : {}),
          text: t.content.replace(/\n$/, ''),
        });
        break;
      case 'blockquote_open':
        blocks.push({ kind: 'notice', tone: 'info', inlines: collectUntil('blockquote_close') });
        break;
      case 'table_open': {
        const head: string[] = [];
        const rows: Inline[][][] = [];
        let inHead = false;
        for (i += 1; i < tokens.length && tokens[i].type !== 'table_close'; i++) {
          const u = tokens[i];
          if (u.type === 'thead_open') inHead = true;
          else if (u.type === 'thead_close') inHead = false;
          else if (u.type === 'tr_open' && !inHead) rows.push([]);
          else if (u.type === 'inline') {
            const cell = inlinesOf(u.children ?? []);
            if (inHead) head.push(plain(cell));
            else rows[rows.length - 1]?.push(cell);
          }
        }
        blocks.push({ kind: 'table', head, rows });
        break;
      }
      case 'hr':
        break;
      default:
        // Anything else at block level (raw HTML is disabled) carries no content of its own.
        break;
    }
  }
  return blocks;
}
