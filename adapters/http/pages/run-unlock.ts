import type { FastifyInstance } from 'fastify';
import type { FlowRuns } from '../../../services/flows/runs.ts';
import type { Block, PageDocument } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { runTokenCookie } from '../run-tokens.ts';
import { h, p } from './blocks.ts';
import { notFoundPage } from './error-pages.ts';
import { sendPage } from './respond.ts';
import type { PageSchema } from './routes.ts';

/** The form that proves a run's token to the browser (a run started over the API, opened in a browser). */
function tokenForm(runId: string): Block {
  const action = `/runs/${escapeHtml(runId)}/token`;
  return {
    kind: 'html',
    html: `<form method="post" action="${action}"><label for="run-token">run_token</label> <input id="run-token" name="run_token" type="password" autocomplete="off" maxlength="100" required> <button type="submit">Open the run</button></form>`,
    markdown: [p('Send the run_token as ', { code: 'Authorization: Bearer <run_token>' }, '.')],
  };
}

/**
 * What `/runs/{id}` answers when the run cannot be shown: a run that does not exist and a targeted run
 * without its token look the same (existence is not revealed), and both offer the token form.
 */
export function runNotShownPage(path: string, runId: string): PageDocument {
  const page = notFoundPage(path);
  return {
    ...page,
    blocks: [
      ...page.blocks,
      h(2, 'A run against your own server?'),
      p('Such a run is readable only with the run_token its start answered. Enter it to open the run here.'),
      tokenForm(runId),
    ],
  };
}

/** `POST /runs/{id}/token`: a valid run token becomes the run's cookie, and the browser goes to the run. */
export function runUnlockRoute(app: FastifyInstance, flowRuns: FlowRuns, pageSchema: PageSchema): void {
  app.post(
    '/runs/:id/token',
    {
      schema: {
        ...pageSchema("Opens a run with its run_token in a browser (form post; sets the run's cookie, redirects)", {
          type: 'object',
          properties: { id: { type: 'string', maxLength: 100 } },
        }),
        body: {
          type: 'object',
          nullable: true,
          properties: { run_token: { type: 'string', maxLength: 100 } },
        },
        response: { 303: { description: "See Other: the run's page (Location)", type: 'null' } },
      },
    },
    async (request, reply) => {
      const id = (request.params as { id: string }).id;
      const token = (request.body as { run_token?: string } | undefined)?.run_token?.trim() ?? '';
      if (!token || !(await flowRuns.readable(id, [token])))
        return sendPage(request, reply, runNotShownPage(`/runs/${id}`, id), 404);
      reply.header('set-cookie', runTokenCookie(id, token));
      return reply.redirect(`/runs/${encodeURIComponent(id)}`, 303);
    },
  );
}
