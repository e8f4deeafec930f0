import type { Block, Inline, PageDocument } from './document.ts';

const escapeMd = (s: string) => s.replace(/([\\`*_[\]<>|])/g, '\\$1');

function inline(i: Inline): string {
  if (typeof i === 'string') return escapeMd(i);
  if ('code' in i) return `\`${i.code.replace(/`/g, 'ˋ')}\``;
  if ('link' in i) return `[${escapeMd(i.link)}](${i.href.replace(/[()\s]/g, encodeURIComponent)})`;
  if ('strong' in i) return `**${escapeMd(i.strong)}**`;
  return `*${escapeMd(i.em)}*`;
}
const inlines = (list: Inline[]) => list.map(inline).join('');

function block(b: Block): string {
  switch (b.kind) {
    case 'heading':
      return `${'#'.repeat(b.level)} ${escapeMd(b.text)}`;
    case 'paragraph':
      return inlines(b.inlines);
    case 'list':
      return b.items.map((item, i) => `${b.ordered ? `${i + 1}.` : '-'} ${inlines(item)}`).join('\n');
    case 'code':
      return `\`\`\`${b.lang ?? ''}\n${b.text}\n\`\`\``;
    case 'table':
      return [`| ${b.head.map(escapeMd).join(' | ')} |`, `|${b.head.map(() => '---').join('|')}|`, ...b.rows.map((r) => `| ${r.map((c) => inlines(c).replace(/\n/g, ' ')).join(' | ')} |`)].join('\n');
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
