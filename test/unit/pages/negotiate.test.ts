import { describe, expect, it } from 'vitest';
import { prefersMarkdown } from '../../../adapters/http/pages/negotiate.ts';

describe('markdown negotiation (spec discovery rule 4)', () => {
  const table: Array<[string | undefined, boolean]> = [
    [undefined, false],
    ['*/*', false],
    ['text/html', false],
    ['text/markdown', true],
    ['text/x-markdown', true],
    ['text/markdown, text/html', true], // tie: markdown ranked at least as high
    ['text/html, text/markdown;q=0.9', false],
    ['text/html;q=0.5, text/markdown;q=0.5', true],
    ['text/markdown;q=0.8, */*;q=0.9', false],
    ['text/markdown;q=0.8, */*;q=0.1', true],
    ['text/*, text/markdown', true],
    ['text/*;q=1, text/markdown;q=0.99', false],
    ['text/markdown;q=0', false],
    ['application/json', false],
    ['application/xhtml+xml;q=0.9, text/markdown;q=0.95', true],
    ['TEXT/MARKDOWN', true],
    ['text/markdown;q=abc', false],
  ];
  it.each(table)('Accept %j -> markdown %s', (accept, expected) => {
    expect(prefersMarkdown(accept)).toBe(expected);
  });
});
