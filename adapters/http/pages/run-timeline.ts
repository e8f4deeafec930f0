import type { RecordedExchange } from '../../../machines/flow-run.ts';
import { stepBlocks } from './step-controls.ts';
import type { RunView } from '../../../services/flows/runs.ts';
import type { Block, PageDocument } from '../../../services/pages/document.ts';
import { highlightJson } from '../../../services/pages/highlight.ts';
import { samlMessagesHtml, samlMessagesMarkdown } from './saml-in-run.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { lifelineDiagram } from './sequence-diagram.ts';
import { pathOf, statusClass } from '../../../services/pages/exchange-format.ts';

/**
 * A run as a person reads it: a sequence diagram drawn from the exchanges that actually happened
 * (status colours, durations), then one collapsible row per exchange with method, path, status badge
 * and time, request and response side by side, the tokens met decoded inline, and the request as a
 * curl command. Everything is server-rendered; the markdown twin carries the same facts as text.
 */

/** Which part of the origin answered, by path: the diagram's lifelines. */

/** A duration as people read it: at most two decimals (a sum of 0.01 ms steps is not 442.99000000000007). */
const formatMs = (value: number) => `${Math.round(value * 100) / 100} ms`;
export function actorOf(url: string): string {
  let path = '';
  try {
    path = new URL(url).pathname;
  } catch {
    return 'Origin';
  }
  const prefixes: Array<[RegExp, string]> = [
    [/^\/oauth2/, 'OAuth AS'],
    [/^\/oid4vci|openid-credential-issuer/, 'Credential issuer'],
    [/^\/oidc|^\/\.well-known\/openid/, 'OpenID Provider'],
    [/^\/agentauth/, 'Agent auth'],
    [/^\/oid4vp/, 'Verifier'],
    [/^\/mcp/, 'MCP server'],
    [/^\/spiffe/, 'SPIFFE'],
  ];
  return prefixes.find(([re]) => re.test(path))?.[1] ?? 'Origin';
}

const bodyText = (body: unknown) =>
  body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body, null, 2);

/** The request as a curl command (form bodies as --data-urlencode, JSON as -d). */
export function curlOf(x: RecordedExchange): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const parts = [`curl -i -X ${x.request.method} ${quote(x.request.url)}`];
  for (const [name, value] of Object.entries(x.request.headers)) parts.push(`-H ${quote(`${name}: ${value}`)}`);
  const body = x.request.body;
  if (body && typeof body === 'object' && (x.request.headers['content-type'] ?? '').includes('x-www-form-urlencoded')) {
    for (const [k, v] of Object.entries(body as Record<string, unknown>))
      parts.push(`--data-urlencode ${quote(`${k}=${String(v)}`)}`);
  } else if (body !== undefined) parts.push(`-d ${quote(typeof body === 'string' ? body : JSON.stringify(body))}`);
  return parts.join(' \\\n  ');
}

/** The diagram: the client on the left, each answering part of the origin a lifeline; request, then response. */
function exchangeDiagramSvg(exchanges: readonly RecordedExchange[], title: string): string {
  const actors = ['Client'];
  for (const x of exchanges) if (!actors.includes(actorOf(x.request.url))) actors.push(actorOf(x.request.url));
  const col = 200;
  const width = Math.max(actors.length * col, 420);
  const cx = (a: string) => actors.indexOf(a) * col + col / 2;
  const top = 50;
  const row = 56;
  const height = top + exchanges.length * row + 24;
  const rows = exchanges.map((x, i) => {
    const y = top + i * row + 18;
    const to = cx(actorOf(x.request.url));
    const from = cx('Client');
    const label = `${i + 1}. ${x.request.method} ${pathOf(x.request.url).slice(0, 40)}`;
    return (
      `<text x="${(from + to) / 2}" y="${y - 6}" text-anchor="middle">${escapeHtml(label)}</text><line class="msg" x1="${from}" y1="${y}" x2="${to}" y2="${y}" marker-end="url(#run-arrow)"/>` +
      `<line class="msg status-${statusClass(x.response.status)}" x1="${to}" y1="${y + 20}" x2="${from}" y2="${y + 20}" stroke-dasharray="6 3" marker-end="url(#run-arrow)"/><text class="status-${statusClass(x.response.status)}" x="${(from + to) / 2}" y="${y + 16}" text-anchor="middle">${x.response.status} · ${formatMs(x.duration_ms)}</text>`
    );
  });
  return lifelineDiagram({
    actors,
    x: cx,
    boxWidth: 170,
    width,
    height,
    label: `Exchanges of ${title}`,
    rows,
    marker: 'run-arrow',
  });
}

function side(title: string, headers: Record<string, string>, body: unknown): string {
  const rows = Object.entries(headers)
    .map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td><code>${escapeHtml(v)}</code></td></tr>`)
    .join('');
  const text = bodyText(body);
  const json = body !== undefined && typeof body !== 'string';
  return `<section><h4>${escapeHtml(title)}</h4>${rows ? `<table class="headers">${rows}</table>` : ''}${text ? `<pre tabindex="0"><code${json ? ' class="language-json"' : ''}>${json ? highlightJson(text) : escapeHtml(text)}</code></pre>` : ''}</section>`;
}

/** One click to the looking glass with the token's header and claims (the run keeps no signature, so it reads as unsigned). */
function lookingGlassForm(t: { header: Record<string, unknown>; payload: Record<string, unknown> }): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `<form method="post" action="/looking-glass" class="inline"><input type="hidden" name="token" value="${part(t.header)}.${part(t.payload)}."><button type="submit" class="secondary">Explain in the looking glass</button></form>`;
}

/** One exchange as a collapsible row (HTML) and as its markdown equivalent. */
export function exchangeBlock(
  x: RecordedExchange,
  index: number,
  machineAfter?: { state: string; href: string },
): Block {
  const cls = statusClass(x.response.status);
  const tokens = (x.tokens ?? [])
    .map(
      (t) =>
        `<section class="token"><h4>${escapeHtml(t.name)} (decoded; signature not stored)</h4><pre tabindex="0"><code class="language-json">${highlightJson(JSON.stringify({ header: t.header, payload: t.payload }, null, 2))}</code></pre>${lookingGlassForm(t)}</section>`,
    )
    .join('');
  const saml = samlMessagesHtml(x);
  const notes = x.annotations.length
    ? `<ul>${x.annotations.map((a) => `<li>${escapeHtml(a)}</li>`).join('')}</ul>`
    : '';
  // Step mode: the learner changed this request before it was sent; the answer is the server's to that.
  const edits = x.edited ? (x.edits ?? []) : [];
  const editedNote = x.edited
    ? `<p class="edited"><strong>Edited by you before it was sent:</strong> ${edits.map((e) => `<code>${escapeHtml(e)}</code>`).join(', ')}</p>`
    : '';
  const html = `<details class="exchange" id="exchange-${index + 1}"${cls === 'bad' ? ' open' : ''}><summary><span class="n">${index + 1}</span> <strong>${escapeHtml(x.step)}</strong> <span class="method">${escapeHtml(x.request.method)}</span> <code>${escapeHtml(pathOf(x.request.url))}</code> <span class="badge status-${cls}">${x.response.status}</span> <span class="ms">${formatMs(x.duration_ms)}</span>${x.edited ? ' <span class="badge edited">edited</span>' : ''}</summary>${editedNote}${machineAfter ? `<p class="hint">Run machine after this exchange: <a href="${escapeHtml(machineAfter.href)}"><code>${escapeHtml(machineAfter.state)}</code></a></p>` : ''}${notes}<div class="sides">${side('Request', x.request.headers, x.request.body)}${side('Response', x.response.headers, x.response.body)}</div>${tokens}${saml}<details class="curl"><summary>Copy as curl</summary><pre tabindex="0"><code>${escapeHtml(curlOf(x))}</code></pre></details></details>`;
  const markdown: Block[] = [
    { kind: 'heading', level: 3, text: `${index + 1}. ${x.step}${x.edited ? ' (edited)' : ''}` },
    ...(x.edited
      ? [
          {
            kind: 'paragraph',
            inlines: [
              'Edited by you before it was sent: ',
              ...edits.flatMap((e, i) => [...(i ? [', '] : []), { code: e }]),
            ],
          } as Block,
        ]
      : []),
    {
      kind: 'paragraph',
      inlines: [
        { code: `${x.request.method} ${x.request.url}` },
        ` → ${x.response.status} in ${formatMs(x.duration_ms)}`,
        ...(machineAfter ? ['; run machine: ', { link: machineAfter.state, href: machineAfter.href }] : []),
      ],
    },
    ...(x.annotations.length ? [{ kind: 'list', items: x.annotations.map((a) => [a]) } as Block] : []),
    { kind: 'code', lang: 'json', text: JSON.stringify({ request: x.request, response: x.response }, null, 2) },
    ...(x.tokens ?? []).map(
      (t) =>
        ({
          kind: 'code',
          lang: 'json',
          text: JSON.stringify({ token: t.name, header: t.header, payload: t.payload }, null, 2),
        }) as Block,
    ),
    ...samlMessagesMarkdown(x),
    { kind: 'code', lang: 'sh', text: curlOf(x) },
  ];
  return { kind: 'html', html, markdown };
}

/** The run's event stream page (time travel), at one event when `version` is given. */
const streamHref = (runId: string, version?: number) =>
  `/streams/run:${runId}${version === undefined ? '' : `?at=${version}`}`;

/** The run page: status, then the diagram and one row per exchange. */
/** A run against the user's own server: each named check's verdict, with the rule it holds the server to. */
function checkBlocks(view: RunView): Block[] {
  const waiting: Block[] =
    view.status === 'awaiting_user' && view.authorization_url
      ? [
          { kind: 'heading', level: 2, text: 'Sign in at the target' },
          {
            kind: 'paragraph',
            inlines: [
              'The run waits for a person: ',
              { link: 'open the authorization URL', href: view.authorization_url },
              ', sign in, and the target sends you back to ',
              { code: view.redirect_uri ?? '' },
              ' (register it at the target first). The run goes on from there; it waits 10 minutes at most.',
            ],
          },
        ]
      : [];
  if (!view.checks?.length) return waiting;
  const failed = view.checks.filter((c) => c.verdict === 'failed').length;
  const passed = view.checks.filter((c) => c.verdict === 'passed').length;
  const target =
    view.target === undefined ? 'our own service' : 'issuer' in view.target ? view.target.issuer : view.target.base_url;
  return [
    ...waiting,
    { kind: 'heading', level: 2, text: 'Checks' },
    {
      kind: 'paragraph',
      inlines: [
        'Against ',
        { code: target },
        `: ${passed} passed, ${failed} failed, ${view.checks.length - passed - failed} not applicable.`,
      ],
    },
    {
      kind: 'table',
      head: ['Check', 'Verdict', 'Rule', 'Detail'],
      rows: view.checks.map((c) => [
        [c.check],
        [c.verdict === 'failed' ? { strong: 'failed' } : c.verdict.replace('_', ' ')],
        [c.rule],
        [c.detail],
      ]),
    },
  ];
}

export function runPage(view: RunView): PageDocument {
  const blocks: Block[] = [
    { kind: 'heading', level: 1, text: `Run of ${view.protocol}/${view.flow}` },
    {
      kind: 'notice',
      tone: view.status === 'succeeded' ? 'ok' : view.status === 'failed' ? 'error' : 'info',
      inlines: [`Status: ${view.status}`, ...(view.error ? [` — ${view.error}`] : [])],
    },
    ...stepBlocks(view),
    ...checkBlocks(view),
    {
      kind: 'paragraph',
      inlines: [
        'Started ',
        { code: view.started_at },
        '. Secrets are redacted here; the caller of the run saw them in full. ',
        { link: 'JSON', href: `/api/runs/${view.run_id}` },
        ' · ',
        { link: 'HAR', href: `/api/runs/${view.run_id}/har?download=1` },
        ' · ',
        { link: 'export', href: `/api/streams/run:${view.run_id}/export?download=1` },
        ' · ',
        { link: 'event stream', href: streamHref(view.run_id) },
      ],
    },
    {
      kind: 'html',
      html: `<form method="get" action="/runs/${escapeHtml(view.run_id)}/diff" class="inline"><label for="compare-with">Compare with… (another run's id)</label> <input id="compare-with" name="with" required pattern="[A-Za-z0-9_-]{1,100}"> <button type="submit" class="secondary">Compare</button></form>`,
      markdown: [
        {
          kind: 'paragraph',
          inlines: ['Compare with another run: ', { code: `/runs/${view.run_id}/diff/{other_run_id}` }],
        },
      ],
    },
    { kind: 'heading', level: 2, text: 'Exchanges' },
    {
      kind: 'paragraph',
      inlines: [
        'Each row opens to the request and the response side by side, the tokens met, and the request as a curl command.',
      ],
    },
  ];
  if (view.exchanges.length > 0) {
    blocks.push({
      kind: 'figure',
      html: exchangeDiagramSvg(view.exchanges, `${view.protocol}/${view.flow}`),
      caption: `${view.exchanges.length} exchanges, ${formatMs(view.exchanges.reduce((n, x) => n + x.duration_ms, 0))} in all`,
      markdown: [
        {
          kind: 'list',
          ordered: true,
          items: view.exchanges.map((x) => [
            { code: `${x.request.method} ${x.request.url}` },
            ` → ${x.response.status} (${formatMs(x.duration_ms)})`,
          ]),
        },
      ],
    });
  }
  // Each exchange is one event of the run's stream; its version is its place in the stream (1-based).
  const afterExchange = view.machine
    .map((m, i) => ({ ...m, version: i + 1 }))
    .filter((m) => m.event === 'run.exchange_recorded')
    .map((m) => ({ state: m.state, href: streamHref(view.run_id, m.version) }));
  view.exchanges.forEach((x, i) => blocks.push(exchangeBlock(x, i, afterExchange[i])));
  const last = view.machine.at(-1);
  if (last)
    blocks.push({
      kind: 'paragraph',
      inlines: [
        'The ',
        { link: 'run machine', href: `/machines/flowRun?state=${encodeURIComponent(last.state)}` },
        ' ends in ',
        { link: last.state, href: streamHref(view.run_id, view.machine.length) },
        ` after ${view.machine.length} events (`,
        { code: `npm run replay -- … --stream run:${view.run_id}` },
        ' shows the same).',
      ],
    });
  return { title: `Run ${view.run_id}`, noindex: true, blocks };
}
