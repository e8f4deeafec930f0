import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../services/pages/render-markdown.ts';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 13 item 7: a reflected value is escaped for the markdown context, as it is for HTML.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const md = new MarkdownIt();
const markdownOf = async (path: string) => {
  const res = await fetch(`${server.url}${path}`, { headers: { accept: 'text/markdown' } });
  expect(res.headers.get('content-type')).toContain('text/markdown');
  return res.text();
};
const tokensOf = (text: string) => md.parse(text, {}).flatMap((t) => [t, ...(t.children ?? [])]);
const headings = (text: string) => md.parse(text, {}).filter((t) => t.type === 'heading_open').length;
const linkTargets = (text: string) =>
  tokensOf(text)
    .filter((t) => t.type === 'link_open')
    .map((t) => t.attrGet('href'));

/** Characters that start or end markup somewhere in CommonMark or GFM, for the properties below. */
const MARKDOWN_CHARACTERS = [
  '`',
  '#',
  '|',
  '-',
  '>',
  '1',
  '.',
  '*',
  '_',
  '[',
  ']',
  '(',
  ')',
  '<',
  '!',
  '&',
  ';',
  '\\',
  '=',
  '~',
];
const INJECTION = 'x`\n\n# Injected heading\n\n[click](https://evil.example)\n- item\n> quote';

describe('markdown twins escape reflected values (issue 13 item 7)', () => {
  it('/search?q= with newlines, backticks, a heading and a link adds no block and no link', async () => {
    const clean = await markdownOf('/search?q=oauth');
    const attacked = await markdownOf(`/search?q=${encodeURIComponent(INJECTION)}`);
    expect(headings(attacked)).toBe(headings(clean));
    expect(linkTargets(attacked)).not.toContain('https://evil.example');
    expect(md.parse(attacked, {}).some((t) => t.type === 'blockquote_open')).toBe(
      md.parse(clean, {}).some((t) => t.type === 'blockquote_open'),
    );
    // The value is still there, whole, as the text of a code span or paragraph.
    expect(
      tokensOf(attacked).some(
        (t) => (t.type === 'code_inline' || t.type === 'text') && t.content.includes('# Injected heading'),
      ),
    ).toBe(true);
  });

  it('/callback with | in values keeps every table row at two cells', async () => {
    const text = await markdownOf(
      `/callback?code=${encodeURIComponent('a|b|c')}&state=${encodeURIComponent('s`|`t\n| x | y |')}`,
    );
    const tokens = md.parse(text, {});
    const rows: number[] = [];
    let cells = 0;
    for (const t of tokens) {
      if (t.type === 'tr_open') cells = 0;
      if (t.type === 'td_open' || t.type === 'th_open') cells += 1;
      if (t.type === 'tr_close') rows.push(cells);
    }
    expect(rows.length).toBe(3);
    expect(rows.every((n) => n === 2)).toBe(true);
    const codes = tokensOf(text)
      .filter((t) => t.type === 'code_inline')
      .map((t) => t.content);
    expect(codes).toContain('a|b|c');
  });

  it('property: any text in a paragraph, code span, heading, table cell or code block stays in its block', () => {
    fc.assert(
      fc.property(
        fc.string({
          maxLength: 40,
          unit: fc.constantFrom('a', ' ', '\n', '\r', ...MARKDOWN_CHARACTERS),
        }),
        (value) => {
          const text = renderMarkdown({
            title: 't',
            blocks: [
              { kind: 'heading', level: 1, text: value },
              { kind: 'paragraph', inlines: [value, { code: value }, ' end'] },
              { kind: 'table', head: ['a', 'b'], rows: [[[{ code: value }], [value]]] },
              { kind: 'code', text: value },
            ],
          });
          const blocks = md
            .parse(text, {})
            .filter((t) => t.nesting === 1 && t.level === 0)
            .map((t) => t.type);
          expect(blocks).toEqual(['heading_open', 'paragraph_open', 'table_open']);
          expect(md.parse(text, {}).filter((t) => t.type === 'fence')).toHaveLength(1);
          expect(md.parse(text, {}).find((t) => t.type === 'fence')!.content).toBe(
            `${value.replace(/\r\n?/g, '\n')}\n`,
          );
          const rows = md.parse(text, {}).filter((t) => t.type === 'td_open').length;
          expect(rows).toBe(2);
        },
      ),
      { numRuns: 500 },
    );
  });

  const UNIT = fc.constantFrom('a', 'b', ' ', ...MARKDOWN_CHARACTERS, 'é');
  it('[issue 30 item 28] property: text in a paragraph, beside code spans, reads back exactly as its text, with no markup', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30, unit: UNIT }),
        fc.string({ maxLength: 10, unit: UNIT }),
        fc.string({ maxLength: 8, unit: UNIT }),
        (before, code, after) => {
          const text = renderMarkdown({
            title: 't',
            blocks: [{ kind: 'paragraph', inlines: [`x${before}`, { code: `c${code}` }, `${after}y`] }],
          });
          const inline = md.parse(text, {}).find((t) => t.type === 'inline')!;
          const children = inline.children ?? [];
          expect(children.map((t) => t.type).filter((type) => type !== 'text' && type !== 'code_inline')).toEqual([]);
          expect(children.filter((t) => t.type === 'code_inline')).toHaveLength(1);
          expect(
            children
              .filter((t) => t.type === 'text')
              .map((t) => t.content)
              .join(''),
          ).toBe(`x${before}${after}y`.replace(/\s+$/, ''));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('[issue 30 item 28] underscores inside words and lone backticks are not escaped; markup-starting ones are', () => {
    const paragraph = (inlines: any[]) =>
      renderMarkdown({ title: 't', blocks: [{ kind: 'paragraph', inlines }] })
        .trimEnd()
        .split('\n')
        .at(-1);
    expect(paragraph(['send identity_assertion and claim_token'])).toBe('send identity_assertion and claim_token');
    expect(paragraph(['a lone ` backtick'])).toBe('a lone ` backtick');
    expect(paragraph(['_emphasis_ here'])).toBe('\\_emphasis\\_ here');
    expect(paragraph(['two `ticks` here'])).toBe('two \\`ticks\\` here');
    expect(paragraph(['a ` then ', { code: 'x' }])).toBe('a \\` then `x`');
    // Found by the property on another seed: an escaped backtick beside a fence must not close an earlier run.
    const tricky = renderMarkdown({
      title: 't',
      blocks: [{ kind: 'paragraph', inlines: ['x``a`', { code: 'c' }, 'y'] }],
    });
    const children = md.parse(tricky, {}).find((t) => t.type === 'inline')!.children ?? [];
    expect(children.filter((t) => t.type === 'code_inline').map((t) => t.content)).toEqual(['c']);
    expect(
      children
        .filter((t) => t.type === 'text')
        .map((t) => t.content)
        .join(''),
    ).toBe('x``a`y');
  });

  it('[issue 30 item 28] served markdown twins write identity_assertion without a backslash', async () => {
    const text = await markdownOf('/protocol/agentauth/flow/register-and-claim');
    expect(text).toContain('identity_assertion');
    expect(text).not.toContain('identity\\_assertion');
  });
});
