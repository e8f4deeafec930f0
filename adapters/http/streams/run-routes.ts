import { STATUS_CODES } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { runAsHar } from '../../../services/flows/har.ts';
import { notFound } from '../../../services/errors.ts';
import { diffRuns } from '../../../services/streams/diff.ts';
import type { MainContext } from '../main/context.ts';
import { diffPage, sendOrNotFound } from './pages.ts';
import { credentialsOf, runExport } from './readable-export.ts';
import { harSchema, runDiffSchema } from './schemas.ts';

const errorResponse = { $ref: 'OAuthError#' };
const runId = { type: 'string', maxLength: 100 };
const pairParams = { type: 'object', required: ['a', 'b'], properties: { a: runId, b: runId } };

/** A run as HAR 1.2, and two runs compared (JSON and page). */
export function runRoutes(app: FastifyInstance, ctx: MainContext): void {
  app.get(
    '/api/runs/:id/har',
    {
      schema: {
        summary: "A run's captured exchanges as HAR 1.2 (redacted as the run page is), for a browser's developer tools",
        tags: ['catalog'],
        params: { type: 'object', required: ['id'], properties: { id: runId } },
        querystring: { type: 'object', properties: { download: { type: 'string', enum: ['0', '1'] } } },
        response: { 200: harSchema, 404: errorResponse },
      },
    },
    async (request, reply) => {
      const id = (request.params as { id: string }).id;
      await ctx.streamReaders.view(`run:${id}`, credentialsOf(request));
      const rows = await ctx.log.readStream(`run:${id}`);
      if (rows.length === 0) throw notFound('No such run');
      reply.header('cache-control', 'no-store');
      if ((request.query as { download?: string }).download === '1')
        reply.header('content-disposition', `attachment; filename="run-${id}.har"`);
      return runAsHar(id, rows, { version: ctx.config.version, statusText: (status) => STATUS_CODES[status] ?? '' });
    },
  );

  app.get(
    '/api/runs/:a/diff/:b',
    {
      schema: {
        summary:
          'Two runs compared: the first divergence of their events, and their exchanges paired by step, field by field (volatile values listed apart)',
        tags: ['catalog'],
        params: pairParams,
        response: { 200: runDiffSchema, 404: errorResponse },
      },
    },
    async (request, reply) => {
      const { a, b } = request.params as { a: string; b: string };
      reply.header('cache-control', 'no-store');
      return diffRuns(await runExport(ctx, a, request), await runExport(ctx, b, request));
    },
  );

  app.get(
    '/runs/:a/diff/:b',
    {
      schema: { summary: 'Two runs side by side, differing fields marked (page)', tags: ['pages'], params: pairParams },
    },
    async (request, reply) =>
      sendOrNotFound(request, reply, async () => {
        const { a, b } = request.params as { a: string; b: string };
        const [left, right] = [await runExport(ctx, a, request), await runExport(ctx, b, request)];
        return diffPage(diffRuns(left, right), left, right);
      }),
  );

  // The run page's "compare with…" form names the other run in the query; the comparison lives at a path.
  app.get(
    '/runs/:a/diff',
    {
      schema: {
        summary: 'Redirects to /runs/{a}/diff/{with} (the run page form)',
        tags: ['pages'],
        params: { type: 'object', required: ['a'], properties: { a: runId } },
        querystring: {
          type: 'object',
          required: ['with'],
          properties: { with: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' } },
        },
        response: { 303: { description: 'See Other: the comparison page (Location)', type: 'null' } },
      },
    },
    async (request, reply) => {
      const { a } = request.params as { a: string };
      return reply.redirect(`/runs/${encodeURIComponent(a)}/diff/${(request.query as { with: string }).with}`, 303);
    },
  );
}
