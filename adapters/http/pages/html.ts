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

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fdfdfc;--muted:#5b6570;--accent:#0b57d0;--line:#d9dde3;--bad:#b3261e;--good:#146c2e}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#14171a;--muted:#a2abb5;--accent:#8ab4f8;--line:#2c3238;--bad:#f2b8b5;--good:#9bd5a6}}
*{box-sizing:border-box}body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header,main,footer{max-width:60rem;margin:0 auto;padding:1rem 1.25rem}header{border-bottom:1px solid var(--line)}
header a{font-weight:600;text-decoration:none;color:var(--fg)}a{color:var(--accent)}
code,pre{font:0.92em/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}pre{overflow:auto;padding:.75rem;border:1px solid var(--line);border-radius:6px}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}input[type=text],input[type=password],select{font:inherit;padding:.45rem .6rem;border:1px solid var(--line);border-radius:6px;background:transparent;color:inherit;min-width:16rem}
button{font:inherit;padding:.45rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--bg);cursor:pointer;margin:.75rem .5rem 0 0}
button.secondary{background:transparent;color:var(--accent)}button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.notice{border-left:4px solid var(--muted);padding:.5rem .9rem;color:var(--muted)}.error{border-left-color:var(--bad);color:var(--bad)}.ok{border-left-color:var(--good);color:var(--good)}
footer{color:var(--muted);font-size:.9em;border-top:1px solid var(--line)}
`;

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
