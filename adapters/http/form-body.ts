import type { FastifyReply, FastifyRequest } from 'fastify';
import { oauthError } from '../../services/errors.ts';

/**
 * RFC 6749 §3.2 (and §4.1.3, §4.4.2): token requests are `application/x-www-form-urlencoded`. A route
 * that takes only a form refuses any other body with `invalid_request` naming the rule, before fastify
 * has parsed it into something the handler would accept.
 */
export function requireFormBody(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return done();
  done(
    oauthError(
      'invalid_request',
      'The token request must be form-encoded (Content-Type: application/x-www-form-urlencoded, RFC 6749 §3.2)',
    ),
  );
}
