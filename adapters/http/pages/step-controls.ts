import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { NextRequest } from '../../../machines/flow-run.ts';
import { OAuthError } from '../../../services/errors.ts';
import type { RequestEdit } from '../../../services/flows/request-edit.ts';
import type { FlowRuns, RunView } from '../../../services/flows/runs.ts';
import type { Block } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { recordFrom } from '../../../services/untrusted/keys.ts';
import { h, p } from './blocks.ts';
import { sendPage } from './respond.ts';
import { cookieAuthorization, runTokensOf } from '../run-tokens.ts';
import type { PageSchema } from './routes.ts';

const EDITABLE = ['query', 'form', 'headers'] as const;

/** The fields of the next request a learner may change, by part. */
function fieldsOf(next: NextRequest): Array<[(typeof EDITABLE)[number], string, string]> {
  const out: Array<[(typeof EDITABLE)[number], string, string]> = [];
  for (const [name, value] of new URL(next.url).searchParams) out.push(['query', name, value]);
  if (next.body && typeof next.body === 'object' && !Array.isArray(next.body))
    for (const [name, value] of Object.entries(next.body as Record<string, unknown>))
      if (typeof value === 'string') out.push(['form', name, value]);
  for (const [name, value] of Object.entries(next.headers)) out.push(['headers', name, value]);
  return out;
}

/** A paused run's next request, its explanation and the Step / Continue / Cancel forms (no JavaScript needed). */
export function stepBlocks(view: RunView): Block[] {
  const next = view.next_request;
  if (view.status !== 'paused' || !next) return [];
  const action = (verb: string) => `/runs/${escapeHtml(view.run_id)}/${verb}`;
  const rows = fieldsOf(next)
    .map(
      ([part, name, value], i) =>
        `<tr><td><code>${part}</code></td><td><label for="f${i}"><code>${escapeHtml(name)}</code></label></td><td><input id="f${i}" name="${part}.${escapeHtml(name)}" value="${escapeHtml(value)}"></td><td><label><input type="checkbox" name="remove" value="${part}.${escapeHtml(name)}"> remove</label></td></tr>`,
    )
    .join('');
  const editor = `<form method="post" action="${action('step')}"><table><caption>The next request's fields: change a value, remove a field, or add one, then Step</caption><thead><tr><th>Part</th><th>Name</th><th>Value</th><th></th></tr></thead><tbody>${rows}</tbody></table><p><label for="add-part">Add</label> <select id="add-part" name="add_part"><option>form</option><option>query</option><option>headers</option></select> <label for="add-name">name</label> <input id="add-name" name="add_name" maxlength="100"> <label for="add-value">value</label> <input id="add-value" name="add_value" maxlength="4096"></p><button type="submit">Step: send this request</button></form><form method="post" action="${action('continue')}" class="inline"><button type="submit" class="secondary">Continue to the end</button></form> <form method="post" action="${action('cancel')}" class="inline"><button type="submit" class="secondary">Cancel the run</button></form>`;
  return [
    h(2, 'Next request'),
    ...(view.explanation ? [p(view.explanation)] : []),
    { kind: 'code', lang: 'http', text: requestText(next) },
    {
      kind: 'html',
      html: editor,
      markdown: [
        p(
          'Step with ',
          { code: `POST /api/runs/${view.run_id}/step` },
          ' (Bearer run_token, body {} or {"edit": {"form": {"name": "value or null"}}}), or ',
          { code: 'continue' },
          ' or ',
          { code: 'cancel' },
          '.',
        ),
      ],
    },
  ];
}

function requestText(next: NextRequest): string {
  const url = new URL(next.url);
  const lines = [`${next.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of Object.entries(next.headers)) lines.push(`${name}: ${value}`);
  if (next.body !== undefined)
    lines.push(
      '',
      typeof next.body === 'object' &&
        next.body &&
        !Array.isArray(next.body) &&
        !next.headers['content-type']?.includes('json')
        ? new URLSearchParams(next.body as Record<string, string>).toString()
        : JSON.stringify(next.body),
    );
  return lines.join('\n');
}

/**
 * The form's fields as an edit: only values that differ from what the page showed (the log's, secrets
 * redacted), the removals ticked, and one added field.
 */
function editFromForm(next: NextRequest, form: Record<string, unknown>): RequestEdit | undefined {
  const shown = new Map(fieldsOf(next).map(([part, name, value]) => [`${part}.${name}`, value]));
  const parts = new Map<string, Record<string, string | null>>();
  const put = (part: string, name: string, value: string | null) => {
    const changes = parts.get(part) ?? recordFrom<string | null>([]);
    changes[name] = value;
    parts.set(part, changes);
  };
  for (const [key, value] of Object.entries(form)) {
    const dot = key.indexOf('.');
    const part = key.slice(0, dot);
    if (dot < 0 || !(EDITABLE as readonly string[]).includes(part) || typeof value !== 'string') continue;
    if (shown.has(key) && shown.get(key) !== value) put(part, key.slice(dot + 1), value);
  }
  for (const removed of [form.remove ?? []].flat()) {
    const key = String(removed);
    const dot = key.indexOf('.');
    if (shown.has(key)) put(key.slice(0, dot), key.slice(dot + 1), null);
  }
  const addPart = String(form.add_part ?? '');
  const addName = String(form.add_name ?? '').trim();
  if (addName && (EDITABLE as readonly string[]).includes(addPart)) put(addPart, addName, String(form.add_value ?? ''));
  return parts.size === 0 ? undefined : (Object.fromEntries(parts) as RequestEdit);
}

/** The run page's Step / Continue / Cancel form posts: the cookie's run token, then back to the page. */
export function stepFormRoutes(app: FastifyInstance, flowRuns: FlowRuns, pageSchema: PageSchema): void {
  const params = { type: 'object', properties: { id: { type: 'string', maxLength: 100 } } };
  for (const action of ['step', 'continue', 'cancel'] as const)
    app.post(
      `/runs/:id/${action}`,
      {
        schema: {
          ...pageSchema(
            `Step mode from the run page: ${action} (form post with the run's cookie; redirects to the run)`,
            params,
          ),
          body: { type: 'object', nullable: true, additionalProperties: true },
          response: { 303: { description: "See Other: the run's page (Location)", type: 'null' } },
        },
      },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const id = (request.params as { id: string }).id;
        try {
          const view = await flowRuns.viewFor(id, runTokensOf(request.headers, id));
          const edit =
            action === 'step' && view?.next_request
              ? editFromForm(view.next_request, (request.body ?? {}) as Record<string, unknown>)
              : undefined;
          await flowRuns.control(
            id,
            cookieAuthorization(request.headers.cookie, id),
            action === 'step' ? { kind: 'step', edit } : { kind: action },
          );
          return reply.redirect(`/runs/${id}`, 303);
        } catch (error) {
          if (!(error instanceof OAuthError)) throw error;
          const page = {
            title: 'Cannot move the run',
            noindex: true,
            blocks: [
              h(1, 'The run did not move'),
              { kind: 'notice' as const, tone: 'error' as const, inlines: [`${error.error}: ${error.description}`] },
              p({ link: 'Back to the run', href: `/runs/${id}` }),
            ],
          };
          return sendPage(request, reply, page, error.status);
        }
      },
    );
}
