import { STYLE } from './style.ts';

/** Minimal HTML helpers for the server-rendered pages. */
export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Marks a string as already-escaped HTML. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Tagged template that escapes every interpolated value unless it is Html (or an array of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((v, i) => {
    const text = Array.isArray(v) ? v.map((x) => (x instanceof Html ? x.value : escapeHtml(x))).join('') : v instanceof Html ? v.value : v === undefined || v === null || v === false ? '' : escapeHtml(v);
    out += text + strings[i + 1];
  });
  return new Html(out);
}



export function layout(title: string, body: Html): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Portico</title>
<link rel="alternate" type="text/plain" href="/llms.txt">
<style>${STYLE}</style></head>
<body><header><a href="/">Portico</a> <span class="notice">sandbox: every token here is public demo data</span></header>
<main>${body.value}</main>
<footer>Portico runs real identity protocols on demo data. Nothing here guards anything real.</footer>
</body></html>`;
}
