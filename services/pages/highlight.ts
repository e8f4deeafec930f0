import { escapeHtml } from './render-html.ts';

/**
 * JSON as HTML with its tokens marked (keys, strings, numbers, literals) for the stylesheet to colour.
 * The text is scanned once by one expression over JSON's own token grammar; anything between tokens
 * (punctuation, whitespace) and any text that is not JSON passes through escaped, unchanged.
 */
const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/g;

export function highlightJson(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    out += escapeHtml(text.slice(last, m.index));
    const [whole, string, colon, literal] = m;
    if (string !== undefined)
      out +=
        colon !== undefined
          ? `<span class="j-k">${escapeHtml(string)}</span>${escapeHtml(colon)}`
          : `<span class="j-s">${escapeHtml(string)}</span>`;
    else out += `<span class="${literal !== undefined ? 'j-b' : 'j-n'}">${escapeHtml(whole)}</span>`;
    last = m.index! + whole.length;
  }
  return out + escapeHtml(text.slice(last));
}
