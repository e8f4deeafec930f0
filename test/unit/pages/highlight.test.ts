import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { highlightJson } from '../../../services/pages/highlight.ts';

// Issue 14: JSON bodies are syntax-highlighted; the highlighting never changes or leaks the text.
const unescape = (html: string) =>
  html
    .replace(/<span class="j-[ksnb]">|<\/span>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

describe('JSON highlighting', () => {
  it('marks keys, strings, numbers and literals', () => {
    expect(highlightJson('{"a": "x", "n": -1.5e3, "t": true, "z": null}')).toBe(
      '{<span class="j-k">&quot;a&quot;</span>: <span class="j-s">&quot;x&quot;</span>, <span class="j-k">&quot;n&quot;</span>: <span class="j-n">-1.5e3</span>, <span class="j-k">&quot;t&quot;</span>: <span class="j-b">true</span>, <span class="j-k">&quot;z&quot;</span>: <span class="j-b">null</span>}',
    );
  });

  it('property: the text comes back exactly, and nothing in it becomes markup', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 2);
        const html = highlightJson(text);
        expect(unescape(html)).toBe(text);
        expect(html.replace(/<span class="j-[ksnb]">|<\/span>/g, '')).not.toMatch(/[<>]/);
      }),
      { numRuns: 500 },
    );
  });
});
