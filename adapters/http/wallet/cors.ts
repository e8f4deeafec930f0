import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../../services/errors.ts';
import { sendError } from '../error-handling.ts';

const ALLOWED_HEADERS = 'content-type, x-wallet-session';
const ALLOWED_METHODS = 'GET, POST, OPTIONS';

/**
 * CORS for WALLET_ALLOWED_CORS_ORIGINS only (decisions section 10): those origins get their own
 * origin back with credentials, `X-Wallet-Session` allowed and exposed; a preflight from any other
 * origin is refused with 403. Requests without an Origin header are not affected.
 */
export function installWalletCors(app: FastifyInstance, allowedOrigins: readonly string[]): void {
  const allowed = new Set(allowedOrigins);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    reply.header('vary', 'Origin');
    if (!origin || !allowed.has(origin)) return;
    reply.header('access-control-allow-origin', origin).header('access-control-allow-credentials', 'true').header('access-control-expose-headers', 'X-Wallet-Session');
  });
  app.options('/*', { schema: { hide: true } as never }, async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !allowed.has(origin) || !request.headers['access-control-request-method']) {
      reply.removeHeader('access-control-allow-origin');
      return sendError(reply, new OAuthError('cors_origin_not_allowed', `Cross-origin requests from ${origin ?? 'this origin'} are not allowed (WALLET_ALLOWED_CORS_ORIGINS)`, 403));
    }
    return reply.code(204).header('access-control-allow-methods', ALLOWED_METHODS).header('access-control-allow-headers', ALLOWED_HEADERS).header('access-control-max-age', '600').send();
  });
}
