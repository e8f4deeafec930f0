import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MainContext } from '../main/context.ts';
import { ssfManagementRoutes } from './management-routes.ts';
import { ssfReceiverRoutes } from './receiver-routes.ts';

/**
 * The Shared Signals transmitter (OpenID SSF 1.0, docs/ssf.md): its configuration metadata, the stream
 * management API (a Bearer token of `{base}/oauth2` with scope `ssf`, each client its own streams),
 * poll delivery (RFC 8936) and the events a client may send itself to try each CAEP and RISC type.
 */
export async function ssfRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const { streams, emitter, polling, settings, receivers } = ctx.ssf;
  const clientOf = (request: FastifyRequest) =>
    ctx.ssf.clientOf({
      authorization: request.headers.authorization,
      dpop: request.headers.dpop,
      method: request.method,
      url: `${base}${request.url.split('?')[0]}`,
    });
  ssfManagementRoutes(app, { streams, emitter, polling, settings, clientOf });
  ssfReceiverRoutes(app, receivers);
}
