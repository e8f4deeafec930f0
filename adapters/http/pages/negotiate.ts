/**
 * Markdown negotiation (spec discovery rule 4, decisions section 5): the markdown quality is the highest
 * q of `text/markdown` or `text/x-markdown` listed explicitly; the HTML quality the highest q of
 * `text/html`, `application/xhtml+xml`, `text/*` or `*\/*`. Markdown wins when its quality is above 0
 * and at least the HTML quality.
 */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  let markdown = 0;
  let html = 0;
  for (const part of accept.split(',')) {
    const [range, ...params] = part
      .trim()
      .toLowerCase()
      .split(';')
      .map((s) => s.trim());
    if (!range) continue;
    let q = 1;
    for (const p of params) {
      if (!p.startsWith('q=')) continue;
      // A malformed weight makes the range count for nothing.
      const m = /^q=(0(\.\d{0,3})?|1(\.0{0,3})?)$/.exec(p);
      q = m ? Number(p.slice(2)) : 0;
    }
    if (range === 'text/markdown' || range === 'text/x-markdown') markdown = Math.max(markdown, q);
    else if (range === 'text/html' || range === 'application/xhtml+xml' || range === 'text/*' || range === '*/*')
      html = Math.max(html, q);
  }
  return markdown > 0 && markdown >= html;
}
