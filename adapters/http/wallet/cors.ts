import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { oauthError } from '../../../services/errors.ts';
import { sendError } from '../error-handling.ts';

const ALLOWED_HEADERS = 'content-type, x-wallet-session';
const ALLOWED_METHODS = 'GET, POST, OPTIONS';

/**
 * CORS for WALLET_ALLOWED_CORS_ORIGINS only (decisions section 10): those origins get their own
 * origin back with credentials, `X-Wallet-Session` allowed and exposed; a preflight from any other
 * origin is refused with 403. Requests without an Origin header are not affected. Preflights are
 * answered on the wallet's own paths only (`addPreflights`, once every route is in), so an unknown
 * path stays a 404.
 */
export function installWalletCors(app: FastifyInstance, allowedOrigins: readonly string[]): { addPreflights(): void } {
  const allowed = new Set(allowedOrigins);
  const paths = new Set<string>();
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('OPTIONS')) paths.add(route.url);
  });
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    reply.header('vary', 'Origin');
    if (!origin || !allowed.has(origin)) return;
    reply
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-credentials', 'true')
      .header('access-control-expose-headers', 'X-Wallet-Session');
  });
  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (!origin || !allowed.has(origin) || !request.headers['access-control-request-method']) {
      reply.removeHeader('access-control-allow-origin');
      return sendError(
        reply,
        oauthError(
          'cors_origin_not_allowed',
          `Cross-origin requests from ${origin ?? 'this origin'} are not allowed (WALLET_ALLOWED_CORS_ORIGINS)`,
        ),
      );
    }
    return reply
      .code(204)
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .send();
  };
  return {
    addPreflights() {
      for (const url of paths)
        if (!app.hasRoute({ method: 'OPTIONS', url })) app.options(url, { schema: { hide: true } as never }, preflight);
    },
  };
}
