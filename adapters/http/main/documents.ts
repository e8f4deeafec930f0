import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Sends a static document with a strong ETag, answering 304 when the client already has it. */
export function sendDocument(
  request: FastifyRequest,
  reply: FastifyReply,
  body: string,
  contentType: string,
  maxAge = 300,
): FastifyReply {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  reply.header('etag', etag).header('cache-control', `public, max-age=${maxAge}`).type(contentType);
  const inm = request.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}`)) return reply.code(304).send();
  return reply.send(body);
}
