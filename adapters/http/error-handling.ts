import type { FastifyError, FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { OAuthError, oauthError } from '../../services/errors.ts';
import { StoreUnavailable } from '../../services/event-log.ts';
import { StreamBusy } from '../../services/actors/runtime.ts';
import { buildResponseSerializer } from './response-serializer.ts';

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Paths whose errors are pages rather than JSON. */
type PagePathTest = (path: string) => boolean;

/** How a service shows errors on its page paths; JSON everywhere else. */
export interface ErrorPages {
  isPage: PagePathTest;
  sendNotFoundPage: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  /** An error page (HTML or its markdown twin) with the error's status; without it page paths get JSON too. */
  sendErrorPage?: (request: FastifyRequest, reply: FastifyReply, error: OAuthError) => FastifyReply;
  /** Paths whose protocol has an error shape of its own besides ours (SCIM, RFC 7644 §3.12). */
  dialects?: readonly ErrorDialect[];
}

/** A protocol's error body and media type, for the paths it serves. */
interface ErrorDialect {
  matches: PagePathTest;
  contentType: string;
  body(error: OAuthError): Record<string, unknown>;
}

const pathOf = (url: string) => url.split('?')[0];
/** The path as routing saw it: `/%61pi/x` is `/api/x`, so it errs in JSON like `/api/x` does. */
function decodedPathOf(url: string): string {
  try {
    return decodeURIComponent(pathOf(url));
  } catch {
    return pathOf(url);
  }
}
const allowedMethods = (app: FastifyInstance, path: string) =>
  HTTP_METHODS.filter((method) => app.findRoute({ method, url: path }));

function toOAuthError(error: FastifyError | Error): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof StoreUnavailable)
    return oauthError('temporarily_unavailable', 'The event store cannot be reached right now; try again');
  if (error instanceof StreamBusy) return oauthError('temporarily_unavailable', 'The resource is busy; try again');
  const e = error as FastifyError;
  if (e.validation) return oauthError('invalid_request', describeValidation(e));
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return oauthError('invalid_request:content_too_large', 'The request body is larger than this endpoint accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return oauthError('invalid_request:unsupported_media_type', 'Unsupported Content-Type for this endpoint');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return oauthError('invalid_request', 'The JSON body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return oauthError('invalid_request', 'The request body could not be parsed');
    case 'FST_ERR_BAD_URL':
      return oauthError('invalid_request', 'The URL is not valid (a percent-encoding in the path does not decode)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return oauthError('invalid_request:uri_too_long', 'A path segment is longer than 100 characters');
  }
  if (e instanceof SyntaxError) return oauthError('invalid_request', 'The request body could not be parsed');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return OAuthError.fromHttpStatus(e.statusCode, 'The request could not be processed');
  }
  return oauthError('server_error', 'The server met an unexpected condition');
}

function describeValidation(e: FastifyError): string {
  const first = e.validation?.[0];
  if (!first) return 'The request is malformed';
  const where = e.validationContext ?? 'body';
  const field =
    (first.params as { missingProperty?: string }).missingProperty ??
    first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return field ? `${where}.${field} ${first.message ?? 'is invalid'}` : `${where} ${first.message ?? 'is invalid'}`;
}

export function sendError(reply: FastifyReply, error: OAuthError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toJSON());
}

/** An error as this path shows errors: a page on page paths (when the service has pages), else JSON. */
function renderError(request: FastifyRequest, reply: FastifyReply, error: OAuthError, pages: ErrorPages): FastifyReply {
  reply.removeHeader('retry-after');
  const path = decodedPathOf(request.url);
  const protocolPath = pages.dialects?.some((d) => d.matches(path)) ?? false;
  if (pages.sendErrorPage && !protocolPath && pages.isPage(path) && error.status !== 405) {
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    return pages.sendErrorPage(request, reply, error);
  }
  return sendJsonError(request, reply, error, pages);
}

/** JSON: ours, or the protocol's own shape where its paths have one (both members sets, SCIM). */
function sendJsonError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: OAuthError,
  pages: ErrorPages,
): FastifyReply {
  const dialect = pages.dialects?.find((d) => d.matches(decodedPathOf(request.url)));
  if (!dialect) return sendError(reply, error);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type(dialect.contentType).send(dialect.body(error));
}

/** RFC 9112 §3.2: an HTTP/1.1 request carries exactly one Host header (any version: never two). */
function hostHeaderProblem(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') hosts++;
  if (hosts > 1) return 'The request carries more than one Host header';
  if (hosts === 0 && request.raw.httpVersion !== '1.0') return 'The request carries no Host header (RFC 9112 §3.2)';
  return undefined;
}

/** The single place where errors become responses: `{error, error_description}`, never a stack. */
export function installErrorHandling(app: FastifyInstance, pages: ErrorPages): void {
  // The error body every route's schema refers to as `OAuthError#`.
  app.addSchema({
    $id: 'OAuthError',
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  });
  // Node would answer these itself with an empty body; they get the error contract instead.
  app.addHook('onRequest', (request, reply, done) => {
    const problem = hostHeaderProblem(request);
    if (!problem) return done();
    reply.header('connection', 'close');
    sendError(reply, oauthError('invalid_request', problem));
  });
  app.server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify(
      oauthError(
        'invalid_request:expectation_failed',
        'Only Expect: 100-continue is understood (RFC 9110 §10.1.1)',
      ).toJSON(),
    );
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let mapped = toOAuthError(error);
    // A route may say how to fix a malformed request; the error then names the fix.
    const hint = (request.routeOptions.config as { fixHint?: string } | undefined)?.fixHint;
    if (hint && error.validation) mapped = mapped.withDescription(`${mapped.description}. ${hint}`);
    if (mapped.status >= 500) request.log.error({ err: error }, 'unhandled error');
    // RFC 9110 §15.5.6: every 405 names what is allowed; a route that refuses without saying gets the router's list.
    if (mapped.status === 405 && !Object.keys(mapped.headers).some((name) => name.toLowerCase() === 'allow'))
      reply.header('allow', allowedMethods(app, pathOf(request.url)).join(', '));
    return renderError(request, reply, mapped, pages);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    const allowed = allowedMethods(app, path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendJsonError(
        request,
        reply,
        oauthError('method_not_allowed', `${request.method} is not allowed on ${path}`),
        pages,
      );
    }
    if (pages.isPage(decodedPathOf(request.url)) && request.method === 'GET')
      return pages.sendNotFoundPage(request, reply);
    return sendJsonError(request, reply, oauthError('not_found', `No resource at ${path}`), pages);
  });
}

/** A response written straight to the socket, for errors met before HTTP parsing finished. */
function writeSocketError(socket: Socket, status: number, reason: string, error: OAuthError): void {
  if (!socket.writable) return;
  const body = JSON.stringify(error.toJSON());
  socket.write(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    writeSocketError(
      socket,
      408,
      'Request Timeout',
      oauthError('invalid_request:request_timeout', 'The request was not received in time'),
    );
  else if (error.code === 'HPE_HEADER_OVERFLOW')
    writeSocketError(
      socket,
      431,
      'Request Header Fields Too Large',
      oauthError('invalid_request:headers_too_large', 'The request headers are larger than 16 KiB'),
    );
  else writeSocketError(socket, 400, 'Bad Request', oauthError('invalid_request', 'The HTTP request is malformed'));
  socket.destroy();
}

/** How long a client may take to send a whole request (headers and body); streams of responses are not affected. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Fastify options every service of the deployment shares, so that no status leaves in fastify's own
 * shape: errors met while routing (a URL that does not decode, an over-long path parameter) and on
 * the socket (header overflow, a body that never arrives) are rendered as `{error, error_description}`.
 * Requests that arrive while the server drains are answered by `refuseWhileClosing`, not by fastify.
 */
export function sharedServerOptions(
  pages: Pick<ErrorPages, 'isPage' | 'sendErrorPage'>,
  requestTimeoutMs = REQUEST_TIMEOUT_MS,
): FastifyHttpOptions<Server> {
  const renderPages: ErrorPages = { ...pages, sendNotFoundPage: (_request, reply) => reply };
  return {
    requestTimeout: requestTimeoutMs,
    // Node checks request deadlines on this interval (30 s by default, which would double the timeout).
    // requireHostHeader off: Node's own answer would be an empty 400; installErrorHandling refuses in JSON.
    http: {
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(requestTimeoutMs / 4))),
      headersTimeout: requestTimeoutMs,
      requireHostHeader: false,
    },
    return503OnClosing: false,
    schemaController: { compilersFactory: { buildSerializer: buildResponseSerializer } },
    frameworkErrors: (error, request, reply) => {
      renderError(request, reply, toOAuthError(error), renderPages);
    },
    clientErrorHandler,
  };
}

/** While the server drains, requests that still arrive on open keep-alive connections get a 503 in our shape. */
export function refuseWhileClosing(app: FastifyInstance): { close(): void } {
  let closing = false;
  // A callback hook, not an async one: it runs on every request and almost always does nothing.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    sendError(reply, oauthError('temporarily_unavailable', 'The server is shutting down'));
  });
  return {
    close: () => {
      closing = true;
    },
  };
}
