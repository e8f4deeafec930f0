import { notFound } from '../../../services/errors.ts';
import { exportStream } from '../../../services/streams/export.ts';
import { EXPORTABLE_STREAM_ID } from '../../../services/streams/readers.ts';
import { fingerprint } from '../../../services/wallet/exchange.ts';
import { streamExportSchema } from '../streams/schemas.ts';
import type { WalletRoutes } from './context.ts';
import { requestedSessionId } from './request-session.ts';

const errorResponse = { $ref: 'OAuthError#' };

/**
 * `GET /api/exchanges/{id}/export`: one of the wallet's exchanges as portico-stream/1, for the session
 * that made it only. No session, another session, or an unknown exchange: 404 (existence is not revealed).
 */
export const exchangeExportRoutes: WalletRoutes = (app, ctx) => {
  app.get(
    '/api/exchanges/:id/export',
    {
      schema: {
        summary: "One of this session's exchanges as portico-stream/1 (events, the state after each, a digest)",
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } },
        querystring: { type: 'object', properties: { download: { type: 'string', enum: ['0', '1'] } } },
        response: { 200: streamExportSchema, 404: errorResponse },
      },
    },
    async (request, reply) => {
      const streamId = `wallet-exchange:${(request.params as { id: string }).id}`;
      // The owning session only, as it is: reading an export never mints or extends a session.
      const sessionId = requestedSessionId(request);
      const session = sessionId ? ctx.sessions.peek(sessionId) : undefined;
      const rows = session && EXPORTABLE_STREAM_ID.test(streamId) ? await ctx.log.readStream(streamId) : [];
      const started = rows[0];
      if (!session || started?.type !== 'exchange.started' || started.data.session !== fingerprint(session.id))
        throw notFound('No such exchange in this session');
      reply.header('cache-control', 'no-store');
      if ((request.query as { download?: string }).download === '1')
        reply.header('content-disposition', `attachment; filename="${streamId.replaceAll(':', '-')}.portico.json"`);
      return exportStream(streamId, rows, { commit: ctx.config.commit, nowMs: ctx.clock.now() });
    },
  );
};
