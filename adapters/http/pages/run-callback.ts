import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../../services/errors.ts';
import type { FlowRuns } from '../../../services/flows/runs.ts';
import { h, p } from './blocks.ts';
import { sendPage } from './respond.ts';
import type { PageSchema } from './routes.ts';

/**
 * `{base}/runs/callback`, the redirect URI of runs against a user's own server: the person comes back
 * from the target's authorization endpoint, the waiting run takes the response, the browser goes to it.
 */
export function runCallbackRoute(app: FastifyInstance, flowRuns: FlowRuns, pageSchema: PageSchema): void {
  app.get(
    '/runs/callback',
    {
      schema: {
        ...pageSchema(
          'Redirect URI of runs against your own authorization server (RFC 6749 §4.1.2); redirects to the run',
        ),
        querystring: {
          type: 'object',
          properties: Object.fromEntries(
            ['code', 'state', 'iss', 'error', 'error_description', 'error_uri'].map((name) => [
              name,
              { type: 'string', maxLength: 4096 },
            ]),
          ),
        },
        response: { 303: { description: "See Other: the run's page (Location)", type: 'null' } },
      },
    },
    async (request, reply) => {
      const params = new URLSearchParams(request.query as Record<string, string>);
      try {
        return reply.redirect(`/runs/${flowRuns.userReturned(params)}`, 303);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        const page = {
          title: 'No run waits here',
          noindex: true,
          blocks: [h(1, 'No run waits for this response'), p(error.description)],
        };
        return sendPage(request, reply, page, error.status);
      }
    },
  );
}
