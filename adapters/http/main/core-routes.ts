import type { FastifyInstance } from 'fastify';
import type { MainContext } from './context.ts';

const started = Date.now();

/** `GET /health` and `GET /api`, the service index. */
export async function coreRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Runtime health',
        tags: ['service'],
        response: {
          200: {
            type: 'object',
            additionalProperties: true,
            properties: { status: { type: 'string' }, version: { type: 'string' }, commit: { type: 'string' } },
          },
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      const extra = Object.fromEntries(Object.entries(ctx.health).map(([name, read]) => [name, read()]));
      return {
        status: 'ok',
        version: ctx.config.version,
        commit: ctx.config.commit,
        uptime_s: Math.floor((Date.now() - started) / 1000),
        services: { main: { status: 'ok', url: ctx.config.baseUrl }, wallet: { url: ctx.config.walletUrl } },
        event_log: { head_sequence: await ctx.log.headSequence() },
        ...extra,
      };
    },
  );

  app.get(
    '/api',
    {
      schema: {
        summary: 'Service index and endpoint map',
        tags: ['service'],
        response: {
          200: {
            type: 'object',
            additionalProperties: true,
            properties: { endpoints: { type: 'object', additionalProperties: { type: 'string' } } },
          },
        },
      },
    },
    async () => ({
      name: 'Portico',
      description:
        'A live sandbox where agents and API clients run real authentication and identity protocols on demo data.',
      version: ctx.config.version,
      documentation: `${ctx.config.baseUrl}/auth.md`,
      endpoints: Object.fromEntries(
        Object.entries(ctx.apiEndpoints).map(([k, path]) => [
          k,
          path.startsWith('http') ? path : `${ctx.config.baseUrl}${path}`,
        ]),
      ),
    }),
  );
}
