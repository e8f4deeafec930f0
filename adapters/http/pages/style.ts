/** The shared stylesheet of every page: light and dark schemes, readable code, visible focus. */
export const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fdfdfc;--muted:#5b6570;--accent:#0b57d0;--line:#d9dde3;--bad:#b3261e;--good:#146c2e}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#14171a;--muted:#a2abb5;--accent:#8ab4f8;--line:#2c3238;--bad:#f2b8b5;--good:#9bd5a6}}
*{box-sizing:border-box}body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header,main,footer{max-width:60rem;margin:0 auto;padding:1rem 1.25rem}header{border-bottom:1px solid var(--line)}
header a{font-weight:600;text-decoration:none;color:var(--fg)}a{color:var(--accent)}
code,pre{font:0.92em/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}pre{overflow:auto;padding:.75rem;border:1px solid var(--line);border-radius:6px}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}input[type=text],input[type=password],input[type=search],select{font:inherit;padding:.45rem .6rem;border:1px solid var(--line);border-radius:6px;background:transparent;color:inherit;min-width:16rem}
button{font:inherit;padding:.45rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--bg);cursor:pointer;margin:.75rem .5rem 0 0}
button.secondary{background:transparent;color:var(--accent)}button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.notice{border-left:4px solid var(--muted);padding:.5rem .9rem;color:var(--muted)}.error{border-left-color:var(--bad);color:var(--bad)}.ok{border-left-color:var(--good);color:var(--good)}
footer{color:var(--muted);font-size:.9em;border-top:1px solid var(--line)}
main h1,main h2,main h3,main p,main li,main dd,main code{overflow-wrap:anywhere}
header nav a{margin-right:1rem}.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{border:1px solid var(--line);padding:.4rem .6rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
figure{margin:1.5rem 0;overflow:auto}figcaption{color:var(--muted);font-size:.9em}svg text{fill:var(--fg)}svg text:not([font-family]){font:13px system-ui,sans-serif}
svg .lifeline{stroke:var(--line)}svg .msg{stroke:var(--accent)}svg .box{fill:var(--bg);stroke:var(--muted)}
input[type=search]{width:min(100%,36rem);font-size:1.05rem;padding:.6rem .8rem}form[role=search]{display:flex;flex-wrap:wrap;align-items:flex-end;gap:.5rem}form[role=search] label{flex-basis:100%}form[role=search] button{margin:0}
.jwt{font:0.9em/1.5 ui-monospace,monospace;overflow-wrap:anywhere;word-break:break-all;padding:.75rem;border:1px solid var(--line);border-radius:6px}.jwt-h{color:#b3261e}.jwt-p{color:#6a1b9a}.jwt-s{color:#0b57d0}.jwt-legend{font-size:.9em}
@media (prefers-color-scheme:dark){.jwt-h{color:#f2b8b5}.jwt-p{color:#d7aefb}.jwt-s{color:#8ab4f8}}
textarea.short{min-height:4rem}.beside{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.25rem;align-items:start;width:min(calc(100vw - 2.5rem),84rem);position:relative;left:50%;transform:translateX(-50%)}@media (max-width:64rem){.beside{grid-template-columns:1fr;width:100%;left:0;transform:none}}.beside pre{max-height:40rem}
.inline{display:inline}.inline button{margin:.25rem 0}.j-k{color:#6a1b9a}.j-s{color:#146c2e}.j-n{color:#0b57d0}.j-b{color:#b3261e}table.headers th{color:var(--muted)}
@media (prefers-color-scheme:dark){.j-k{color:#d7aefb}.j-s{color:#9bd5a6}.j-n{color:#8ab4f8}.j-b{color:#f2b8b5}}
.hint{color:var(--muted);font-size:.9em;margin:.25rem 0 .5rem}
details.exchange{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.25rem .75rem}details.exchange>summary{cursor:pointer;padding:.35rem 0;display:flex;flex-wrap:wrap;gap:.5rem;align-items:baseline}
details.exchange .n{color:var(--muted)}details.exchange .method{font-weight:700}details.exchange .ms{color:var(--muted);margin-left:auto}
.badge{padding:0 .45rem;border-radius:999px;border:1px solid currentColor;font-weight:600;font-size:.9em}.status-ok{color:var(--good)}.status-redirect{color:var(--accent)}.status-bad{color:var(--bad)}
svg line.status-ok{stroke:var(--good)}svg line.status-redirect{stroke:var(--accent)}svg line.status-bad{stroke:var(--bad)}svg text.status-ok{fill:var(--good)}svg text.status-bad{fill:var(--bad)}
.sides{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}.sides section{min-width:0}.sides pre{max-height:24rem}
table.headers{font-size:.85em;margin:.25rem 0}table.headers th{white-space:nowrap;width:1%}h4{margin:.5rem 0 .25rem}
textarea{font:0.9em ui-monospace,monospace;width:100%;min-height:8rem;padding:.5rem;border:1px solid var(--line);border-radius:6px;background:transparent;color:inherit}
`;
