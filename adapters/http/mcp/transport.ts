import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { originValidationResponse, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';

/** The web-standard Request the SDK's handler takes: the envelope only; the body is handed over parsed. */
function toWebRequest(baseUrl: string, request: FastifyRequest): Request {
  // Repeated headers (arrays) are left out: none the SDK reads may repeat. Names come from the client.
  const headers = Object.create(null) as Record<string, string>;
  for (const name in request.headers) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return new Request(`${baseUrl}${request.url}`, { method: request.method, headers });
}

/** The SDK's Response through Fastify: JSON as a string; only event streams need the body stream. */
async function sendMcpResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  if (!response.headers.get('content-type')?.startsWith('application/json')) return reply.send(response);
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, value] of response.headers) headers[name] = value;
  return reply
    .code(response.status)
    .headers(headers)
    .send(Buffer.from(await response.arrayBuffer()));
}

/**
 * An MCP endpoint's body parser: JSON-RPC errors are the SDK's to answer, so every body is read as
 * JSON here, and one that is not JSON at all is marked for the parse error (`isUnparsable`).
 */
function useJsonRpcBodies(scoped: FastifyInstance): void {
  scoped.removeAllContentTypeParsers();
  scoped.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string));
    } catch {
      done(null, { __invalidJson: true });
    }
  });
}

const isUnparsable = (body: unknown) => (body as { __invalidJson?: boolean } | undefined)?.__invalidJson === true;

/** JSON-RPC's parse error (-32700) for a body that is not JSON. */
const sendParseError = (reply: FastifyReply) =>
  reply
    .code(400)
    .type('application/json')
    .send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON' } });

export interface McpEndpoint {
  url: string;
  summary: string;
  baseUrl: string;
  /** DNS-rebinding defence: the host names a browser's `Origin` may name. */
  allowedOrigins: string[];
  handler: McpHttpHandler;
  /** The protected endpoint's check: the verified caller, or a refusal thrown (401/403 with a challenge). */
  authorize?: (request: FastifyRequest) => Promise<AuthInfo>;
}

/**
 * Serves an MCP endpoint through the SDK's handler. The endpoints are stateless: POST is the one
 * method served (no stream at GET, no session to DELETE), so every other method is the router's 405
 * with `Allow: POST`, in the error contract. The handler: the `Origin` checked, the
 * caller authorized where the endpoint demands it, a body that is not JSON answered with JSON-RPC's
 * parse error; every other JSON-RPC error is the SDK's to answer.
 */
export function serveMcp(app: FastifyInstance, endpoint: McpEndpoint): void {
  app.register(async (scoped) => {
    useJsonRpcBodies(scoped);
    scoped.route({
      method: 'POST',
      url: endpoint.url,
      schema: { summary: endpoint.summary, tags: ['mcp'] },
      handler: async (request, reply) => {
        const webRequest = toWebRequest(endpoint.baseUrl, request);
        const rejected = originValidationResponse(webRequest, endpoint.allowedOrigins);
        if (rejected) return reply.send(rejected);
        const authInfo = endpoint.authorize ? await endpoint.authorize(request) : undefined;
        if (isUnparsable(request.body)) return sendParseError(reply);
        const options = { parsedBody: request.body, ...(authInfo ? { authInfo } : {}) };
        return sendMcpResponse(reply, await endpoint.handler.fetch(webRequest, options));
      },
    });
  });
}
