import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Discovery documents are public and read cross-origin by browser-based agents and registries: every
 * well-known document (the issuer's legacy aliases too), every JWKS, `/llms.txt`, `/openapi.json` and
 * the MCP server card. Decided on the route pattern, once per route.
 */
export const isDiscoveryDocument = (routePattern: string): boolean =>
  /^\/(oid4vci\/)?\.well-known\//.test(routePattern) ||
  /\/jwks(\.json)?$/.test(routePattern) ||
  /^\/(llms\.txt|llms-full\.txt|openapi\.json|mcp\/server-card|mcp\/flow-client\.json)$/.test(routePattern) ||
  /^\/oid4vci\/status-lists\//.test(routePattern);

function allowAnyOrigin(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload: unknown) => void,
): void {
  reply.header('access-control-allow-origin', '*');
  done(null, payload);
}

/** The CORS preflight of a discovery document (Fetch standard §3.2.2): 204, any origin, GET and HEAD. */
function preflight(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .code(204)
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
    .header('access-control-allow-headers', 'If-None-Match')
    .header('access-control-max-age', '86400')
    .send();
}

/**
 * Gives every discovery document's GET `Access-Control-Allow-Origin: *` as its routes are added; once
 * all routes are in, `addPreflights` answers OPTIONS on each of their paths.
 */
export function installDiscoveryCors(app: FastifyInstance): { addPreflights(): void } {
  const documents = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('GET') || !isDiscoveryDocument(route.url)) return;
    documents.add(route.url);
    route.onSend = [...[route.onSend ?? []].flat(), allowAnyOrigin] as typeof route.onSend;
  });
  return {
    addPreflights() {
      for (const url of documents) {
        if (!app.hasRoute({ method: 'OPTIONS', url }))
          app.options(url, { schema: { summary: `CORS preflight of ${url}`, tags: ['discovery'] } }, preflight);
      }
    },
  };
}
