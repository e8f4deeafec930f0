import type { FastifyReply, FastifyRequest } from 'fastify';
import { EXCHANGE_HEADER, STREAM_HEADER, walletExchangeOf } from '../../services/streams/correlation.ts';

/**
 * Correlation at an issuer's or verifier's endpoint (docs/debugging.md): `record` is given the wallet
 * exchange the request names, records it on its own stream and returns that stream's id, which the
 * answer names in `X-Portico-Stream`.
 */
export async function correlate(
  request: FastifyRequest,
  reply: FastifyReply,
  record: (walletExchange: string | undefined) => Promise<string | undefined>,
): Promise<void> {
  const stream = await record(walletExchangeOf(request.headers[EXCHANGE_HEADER]));
  if (stream) reply.header(STREAM_HEADER, stream);
}
