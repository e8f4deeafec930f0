// The small browser module of Portico's pages: live palette search, streaming flow runs, WebMCP tools.
// Every page works without it; it only adds the live parts.
import { pathOf, statusClass } from '../services/pages/exchange-format.ts';
import { dcApiPage } from './dc-api.ts';

type Json = Record<string, any>;

const api = async (path: string, init?: RequestInit): Promise<Json> => {
  const res = await fetch(path, init);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error_description ?? body.error ?? `HTTP ${res.status}`);
  return body;
};
const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  api(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const el = (tag: string, attrs: Record<string, string> = {}, text?: string) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
};

/** Live results under the search box (the form still works without JavaScript). */
function palette(): void {
  const form = document.querySelector<HTMLFormElement>('form[data-palette]');
  const input = form?.querySelector<HTMLInputElement>('input[name=q]');
  const list = document.querySelector<HTMLElement>('#palette-results');
  if (!form || !input || !list) return;
  let seq = 0;
  const search = async () => {
    const mine = ++seq;
    const q = input.value.trim();
    if (!q) return void list.replaceChildren();
    const { results } = await postJson('/api/palette/query', { q, limit: 8 });
    if (mine !== seq) return;
    list.replaceChildren(
      ...results.map((r: Json) => {
        const li = el('li');
        li.append(el('a', { href: r.href }, r.name), document.createTextNode(` — ${r.type}: ${r.summary}`));
        return li;
      }),
    );
  };
  input.addEventListener('input', () => void search());
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void search();
  });
}

const pre = (value: unknown) => {
  const p = el('pre', { tabindex: '0' });
  p.append(el('code', {}, typeof value === 'string' ? value : JSON.stringify(value, null, 2)));
  return p;
};

/** One streamed exchange as the same collapsible row the run page renders on the server. */
function exchangeRow(x: Json, n: number): HTMLElement {
  const cls = statusClass(x.response.status);
  const row = el('details', { class: 'exchange', id: `exchange-${n}` });
  if (cls === 'bad') row.setAttribute('open', '');
  const summary = el('summary');
  summary.append(
    el('span', { class: 'n' }, String(n)),
    ' ',
    el('strong', {}, x.step),
    ' ',
    el('span', { class: 'method' }, x.request.method),
    ' ',
    el('code', {}, pathOf(x.request.url)),
    ' ',
    el('span', { class: `badge status-${cls}` }, String(x.response.status)),
    ' ',
    el('span', { class: 'ms' }, `${x.duration_ms} ms`),
  );
  const sides = el('div', { class: 'sides' });
  for (const [title, part] of [
    ['Request', x.request],
    ['Response', x.response],
  ] as const) {
    const section = el('section');
    section.append(el('h4', {}, title), pre(part.headers ?? {}), ...(part.body === undefined ? [] : [pre(part.body)]));
    sides.append(section);
  }
  row.append(summary, sides);
  for (const t of x.tokens ?? []) {
    const section = el('section', { class: 'token' });
    section.append(el('h4', {}, `Decoded ${t.name}`), pre({ header: t.header, payload: t.payload }));
    row.append(section);
  }
  return row;
}

/** Runs a flow and shows each exchange and decoded token as the run's event stream delivers it. */
function flowRunner(): void {
  const form = document.querySelector<HTMLFormElement>('form[data-run-flow]');
  const out = document.querySelector<HTMLElement>('#run-output');
  if (!form || !out) return;
  form.addEventListener('submit', async (e) => {
    // A stepped run is driven from its page: the form's own post sets the run's cookie and goes there.
    if (new FormData(form).get('mode') === 'step') return;
    e.preventDefault();
    const button = form.querySelector('button');
    if (button) button.disabled = true;
    out.replaceChildren(el('p', { role: 'status' }, 'Running…'));
    try {
      // The chosen options (the form's controls) go with the run.
      const options = Object.fromEntries([...new FormData(form)].filter(([, v]) => typeof v === 'string' && v !== ''));
      const started = await postJson(form.dataset.runFlow!, options, { prefer: 'respond-async' });
      const events = new EventSource(`/api/runs/${started.run_id}/events`);
      let n = 0;
      events.addEventListener('run.exchange_recorded', (m) =>
        out.append(exchangeRow(JSON.parse((m as MessageEvent).data), ++n)),
      );
      events.addEventListener('run.finished', (m) => {
        const x = JSON.parse((m as MessageEvent).data);
        out.querySelector('[role=status]')!.textContent = `Run ${x.status}${x.error ? `: ${x.error}` : ''}`;
        const link = el('p');
        link.append(el('a', { href: `/runs/${started.run_id}` }, 'Open the full run'));
        out.append(link);
        events.close();
        if (button) button.disabled = false;
      });
    } catch (error) {
      out.replaceChildren(el('p', { role: 'alert' }, (error as Error).message));
      if (button) button.disabled = false;
    }
  });
}

/** A Copy button on each curl command of a run page (the command stays selectable without it). */
function copyButtons(): void {
  for (const details of document.querySelectorAll<HTMLDetailsElement>('details.curl')) {
    const code = details.querySelector('pre');
    if (!code || !navigator.clipboard) continue;
    const button = el('button', { type: 'button', class: 'secondary' }, 'Copy');
    button.addEventListener(
      'click',
      () => void navigator.clipboard.writeText(code.textContent ?? '').then(() => (button.textContent = 'Copied')),
    );
    details.append(button);
  }
}

interface ModelContextTool {
  name: string;
  description: string;
  inputSchema: Json;
  execute(input: Json): Promise<unknown>;
}

/**
 * WebMCP (spec discovery rule 6): the specification's four tools, registered only when the browser
 * offers WebMCP.
 */
export function webMcpTools(): ModelContextTool[] {
  return [
    {
      name: 'search_protocols',
      description: 'Search Portico protocols, flows, concepts and requirements',
      inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      execute: ({ query }) => postJson('/api/palette/query', { q: String(query), limit: 10 }),
    },
    {
      name: 'list_protocol_flows',
      description: 'List the flows of a protocol, with whether each can be run',
      inputSchema: { type: 'object', properties: { protocolId: { type: 'string' } }, required: ['protocolId'] },
      execute: ({ protocolId }) => api(`/api/protocols/${encodeURIComponent(String(protocolId))}/flows`),
    },
    {
      name: 'decode_token',
      description: "Decode a JWT, verify it against this origin's issuers and explain its claims",
      inputSchema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
      execute: ({ token }) => postJson('/api/lookingglass/decode', { token: String(token) }),
    },
    {
      name: 'open_protocol_page',
      description: 'Open the page of a protocol in this tab',
      inputSchema: { type: 'object', properties: { protocolId: { type: 'string' } }, required: ['protocolId'] },
      execute: async ({ protocolId }) => {
        const href = `/protocol/${encodeURIComponent(String(protocolId))}`;
        window.location.assign(href);
        return { opened: href };
      },
    },
  ];
}

/** The tools that run and step a flow: only where the deployment serves them (MCP_USER_ENDPOINT). */
export function stepTools(): ModelContextTool[] {
  return [
    {
      name: 'start_stepped_flow',
      description:
        'Start a protocol flow in step mode: it pauses before every request; the answer shows next_request and a run_token',
      inputSchema: {
        type: 'object',
        properties: { protocolId: { type: 'string' }, flowId: { type: 'string' } },
        required: ['protocolId', 'flowId'],
      },
      execute: ({ protocolId, flowId }) =>
        postJson(
          `/api/protocols/${encodeURIComponent(String(protocolId))}/demo/${encodeURIComponent(String(flowId))}`,
          {
            mode: 'step',
          },
        ),
    },
    ...(['step', 'continue', 'cancel'] as const).map((action): ModelContextTool => ({
      name: `${action}_run`,
      description: {
        step: 'Send the next request of a paused run, edited first with {query, form, json, headers} (null removes a field)',
        continue: 'Let a paused run go on to its end without pausing',
        cancel: 'End a paused run as cancelled',
      }[action],
      inputSchema: {
        type: 'object',
        properties: {
          runId: { type: 'string' },
          runToken: { type: 'string' },
          ...(action === 'step' ? { edit: { type: 'object' } } : {}),
        },
        required: ['runId', 'runToken'],
      },
      execute: ({ runId, runToken, edit }) =>
        postJson(`/api/runs/${encodeURIComponent(String(runId))}/${action}`, edit ? { edit } : {}, {
          authorization: `Bearer ${String(runToken)}`,
        }),
    })),
  ];
}

/** Whether the deployment runs the step-tool extension: its service index then names `/mcp/user`. */
async function stepToolsServed(): Promise<boolean> {
  try {
    return typeof ((await api('/api')) as { endpoints?: Record<string, unknown> }).endpoints?.mcp_user === 'string';
  } catch {
    return false;
  }
}

async function webMcp(): Promise<void> {
  const mc = (navigator as unknown as { modelContext?: Json }).modelContext;
  if (!mc) return;
  const tools = [...webMcpTools(), ...((await stepToolsServed()) ? stepTools() : [])];
  if (typeof mc.registerTool === 'function') for (const t of tools) mc.registerTool(t);
  else if (typeof mc.provideContext === 'function') mc.provideContext({ tools });
}

palette();
flowRunner();
copyButtons();
dcApiPage();
void webMcp();
