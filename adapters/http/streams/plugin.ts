import type { FastifyInstance } from 'fastify';
import { walletExchangeOf } from '../../../services/streams/correlation.ts';
import type { StreamExport } from '../../../services/streams/export.ts';
import type { MainContext } from '../main/context.ts';
import { sendOrNotFound, streamPage } from './pages.ts';
import { capabilityQuery, readableExport } from './readable-export.ts';
import { runListRoutes } from './run-list.ts';
import { runRoutes } from './run-routes.ts';
import { streamExportSchema } from './schemas.ts';

const errorResponse = { $ref: 'OAuthError#' };
const streamParams = {
  type: 'object',
  required: ['stream_id'],
  properties: { stream_id: { type: 'string', minLength: 3, maxLength: 200 } },
};
const capability = {
  transaction_id: { type: 'string', maxLength: 100 },
  response_code: { type: 'string', maxLength: 200 },
};

/**
 * The debugging streams (docs/debugging.md): a stream exported as a portable, digest-sealed document
 * and its time-travel page; runs listed, as HAR, and diffed.
 */
export async function streamRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  /** The wallet exchange a stream recorded (its first `*.correlated` event; docs/debugging.md), served by the wallet to its session. */
  const relatedOf = (doc: StreamExport) => {
    const stream = walletExchangeOf(doc.events.find((e) => e.type.endsWith('.correlated'))?.data.stream);
    return stream
      ? [{ stream, href: `${ctx.config.walletUrl}/api/exchanges/${stream.slice('wallet-exchange:'.length)}/export` }]
      : [];
  };

  runListRoutes(app, ctx);
  runRoutes(app, ctx);

  app.get(
    '/api/streams/:stream_id/export',
    {
      schema: {
        summary:
          'One event stream (run:, agent:, issuance:, presentation:) as portico-stream/1: events, the state after each, the machine version and a digest',
        tags: ['streams'],
        params: streamParams,
        querystring: {
          type: 'object',
          properties: { ...capability, download: { type: 'string', enum: ['0', '1'] } },
        },
        response: { 200: streamExportSchema, 400: errorResponse, 404: errorResponse },
      },
    },
    async (request, reply) => {
      const streamId = (request.params as { stream_id: string }).stream_id;
      const doc = await readableExport(ctx, streamId, request);
      reply.header('cache-control', 'no-store');
      if ((request.query as { download?: string }).download === '1')
        reply.header('content-disposition', `attachment; filename="${streamId.replaceAll(':', '-')}.portico.json"`);
      return doc;
    },
  );

  app.get(
    '/streams/:stream_id',
    {
      schema: {
        summary:
          "A stream's timeline, each event with the state after it; ?at=<version> shows state and context (page)",
        tags: ['pages'],
        params: streamParams,
        querystring: {
          type: 'object',
          properties: { ...capability, at: { type: 'string', pattern: '^[1-9][0-9]{0,9}$' } },
        },
      },
    },
    async (request, reply) =>
      sendOrNotFound(request, reply, async () => {
        const streamId = (request.params as { stream_id: string }).stream_id;
        const doc = await readableExport(ctx, streamId, request);
        const at = (request.query as { at?: string }).at;
        return streamPage(doc, at === undefined ? undefined : Number(at), capabilityQuery(request), relatedOf(doc));
      }),
  );
}
