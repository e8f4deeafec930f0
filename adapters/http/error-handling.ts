import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../services/errors.ts';

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Paths whose 404 is a page rather than JSON. */
export type PagePathTest = (path: string) => boolean;

function toOAuthError(error: FastifyError | Error): OAuthError {
  if (error instanceof OAuthError) return error;
  const e = error as FastifyError;
  if (e.validation) return new OAuthError('invalid_request', describeValidation(e), 400);
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new OAuthError('invalid_request', 'The request body is larger than this endpoint accepts', 413);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new OAuthError('invalid_request', 'Unsupported Content-Type for this endpoint', 415);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new OAuthError('invalid_request', 'The JSON body is empty', 400);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new OAuthError('invalid_request', 'The request body could not be parsed', 400);
  }
  if (e instanceof SyntaxError) return new OAuthError('invalid_request', 'The request body could not be parsed', 400);
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new OAuthError('invalid_request', 'The request could not be processed', e.statusCode);
  }
  return new OAuthError('server_error', 'The server met an unexpected condition', 500);
}

function describeValidation(e: FastifyError): string {
  const first = e.validation?.[0];
  if (!first) return 'The request is malformed';
  const where = e.validationContext ?? 'body';
  const field = (first.params as { missingProperty?: string }).missingProperty ?? first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return field ? `${where}.${field} ${first.message ?? 'is invalid'}` : `${where} ${first.message ?? 'is invalid'}`;
}

export function sendError(reply: FastifyReply, error: OAuthError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toJSON());
}

/** The single place where errors become responses: `{error, error_description}`, never a stack. */
export function installErrorHandling(app: FastifyInstance, options: { isPage: PagePathTest; sendNotFoundPage: (req: FastifyRequest, reply: FastifyReply) => FastifyReply }): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = toOAuthError(error);
    if (mapped.status >= 500) request.log.error({ err: error }, 'unhandled error');
    reply.removeHeader('retry-after');
    return sendError(reply, mapped);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = HTTP_METHODS.filter((method) => app.findRoute({ method, url: path }));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, new OAuthError('method_not_allowed', `${request.method} is not allowed on ${path}`, 405));
    }
    if (options.isPage(path) && request.method === 'GET') return options.sendNotFoundPage(request, reply);
    return sendError(reply, new OAuthError('not_found', `No resource at ${path}`, 404));
  });
}
