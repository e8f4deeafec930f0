import { STATUS_CODES } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { runAsHar } from '../../../services/flows/har.ts';
import { notFound } from '../../../services/errors.ts';
import { diffRuns } from '../../../services/streams/diff.ts';
import { exportStream } from '../../../services/streams/export.ts';
import type { MainContext } from '../main/context.ts';
import { harSchema, runDiffSchema, streamExportSchema } from './schemas.ts';

const errorResponse = { $ref: 'OAuthError#' };

/** `GET /api/streams/{stream_id}/export`: one stream as a portable, digest-sealed document (docs/debugging.md). */
export async function streamRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  app.get(
    '/api/streams/:stream_id/export',
    {
      schema: {
        summary:
          'One event stream (run:, agent:, issuance:, presentation:) as portico-stream/1: events, the state after each, the machine version and a digest',
        tags: ['streams'],
        params: {
          type: 'object',
          required: ['stream_id'],
          properties: { stream_id: { type: 'string', minLength: 3, maxLength: 100 } },
        },
        querystring: {
          type: 'object',
          properties: {
            transaction_id: { type: 'string', maxLength: 100 },
            response_code: { type: 'string', maxLength: 200 },
            download: { type: 'string', enum: ['0', '1'] },
          },
        },
        response: { 200: streamExportSchema, 400: errorResponse, 404: errorResponse },
      },
    },
    async (request, reply) => {
      const streamId = (request.params as { stream_id: string }).stream_id;
      const query = request.query as { transaction_id?: string; response_code?: string; download?: string };
      const view = await ctx.streamReaders.view(streamId, {
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
        ...(query.transaction_id ? { transactionId: query.transaction_id } : {}),
        ...(query.response_code ? { responseCode: query.response_code } : {}),
      });
      const rows = await ctx.log.readStream(streamId);
      if (rows.length === 0) throw notFound('No such stream');
      reply.header('cache-control', 'no-store');
      if (query.download === '1')
        reply.header('content-disposition', `attachment; filename="${streamId}.portico.json"`);
      return exportStream(streamId, rows, {
        commit: ctx.config.commit,
        nowMs: ctx.clock.now(),
        ...(view.data ? { data: view.data } : {}),
      });
    },
  );

  app.get(
    '/api/runs/:id/har',
    {
      schema: {
        summary: "A run's captured exchanges as HAR 1.2 (redacted as the run page is), for a browser's developer tools",
        tags: ['catalog'],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } },
        querystring: { type: 'object', properties: { download: { type: 'string', enum: ['0', '1'] } } },
        response: { 200: harSchema, 404: errorResponse },
      },
    },
    async (request, reply) => {
      const id = (request.params as { id: string }).id;
      const rows = await ctx.log.readStream(`run:${id}`);
      if (rows.length === 0) throw notFound('No such run');
      reply.header('cache-control', 'no-store');
      if ((request.query as { download?: string }).download === '1')
        reply.header('content-disposition', `attachment; filename="run-${id}.har"`);
      return runAsHar(id, rows, { version: ctx.config.version, statusText: (status) => STATUS_CODES[status] ?? '' });
    },
  );

  const runExport = async (id: string) => {
    const rows = await ctx.log.readStream(`run:${id}`);
    if (rows.length === 0) throw notFound(`No run ${id}`);
    return exportStream(`run:${id}`, rows, { commit: ctx.config.commit, nowMs: ctx.clock.now() });
  };

  app.get(
    '/api/runs/:a/diff/:b',
    {
      schema: {
        summary:
          'Two runs compared: the first divergence of their events, and their exchanges paired by step, field by field (volatile values listed apart)',
        tags: ['catalog'],
        params: {
          type: 'object',
          required: ['a', 'b'],
          properties: { a: { type: 'string', maxLength: 100 }, b: { type: 'string', maxLength: 100 } },
        },
        response: { 200: runDiffSchema, 400: errorResponse, 404: errorResponse },
      },
    },
    async (request, reply) => {
      const { a, b } = request.params as { a: string; b: string };
      reply.header('cache-control', 'no-store');
      return diffRuns(await runExport(a), await runExport(b));
    },
  );

  Object.assign(ctx.apiEndpoints, {
    run_diff: '/api/runs/{a}/diff/{b}',
    stream_export: '/api/streams/{stream_id}/export',
    run_har: '/api/runs/{id}/har',
  });
}
