import type { FastifyRequest } from 'fastify';
import { notFound } from '../../../services/errors.ts';
import { exportStream, type StreamExport } from '../../../services/streams/export.ts';
import type { StreamCredentials } from '../../../services/streams/readers.ts';
import type { MainContext } from '../main/context.ts';

type CapabilityQuery = { transaction_id?: string; response_code?: string };

/** A stream as a caller with these credentials may read it (404 for any stream it may not, or that does not exist). */
export async function exportFor(
  ctx: MainContext,
  streamId: string,
  credentials: StreamCredentials,
): Promise<StreamExport> {
  const view = await ctx.streamReaders.view(streamId, credentials);
  const rows = await ctx.log.readStream(streamId);
  if (rows.length === 0) throw notFound('No such stream');
  return exportStream(streamId, rows, {
    commit: ctx.config.commit,
    nowMs: ctx.clock.now(),
    ...(view.data ? { data: view.data } : {}),
  });
}

/** What an HTTP caller shows to read streams: its Authorization and Cookie headers, the capability in its query. */
export function credentialsOf(request: FastifyRequest): StreamCredentials {
  const query = request.query as CapabilityQuery;
  return {
    ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    ...(request.headers.cookie ? { cookie: request.headers.cookie } : {}),
    ...(query.transaction_id ? { transactionId: query.transaction_id } : {}),
    ...(query.response_code ? { responseCode: query.response_code } : {}),
  };
}

/** A stream as this HTTP caller may read it. */
export function readableExport(ctx: MainContext, streamId: string, request: FastifyRequest): Promise<StreamExport> {
  return exportFor(ctx, streamId, credentialsOf(request));
}

/** The run `id`'s stream (a run is read by its id). */
export const runExport = (ctx: MainContext, id: string, request: FastifyRequest) =>
  readableExport(ctx, `run:${id}`, request);

/** The capability members of a query, kept for links within the page. */
export function capabilityQuery(request: FastifyRequest): string {
  const query = request.query as CapabilityQuery;
  const kept = new URLSearchParams();
  if (query.transaction_id) kept.set('transaction_id', query.transaction_id);
  if (query.response_code) kept.set('response_code', query.response_code);
  return kept.toString();
}
