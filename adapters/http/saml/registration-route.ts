import type { FastifyInstance } from 'fastify';
import type { MainContext } from '../main/context.ts';
import { countedAddress } from '../rate-limit.ts';
import { spView } from './demo-routes.ts';
import { invalidRequest, oauthError } from '../../../services/errors.ts';

/**
 * `POST /saml/idp/sps` (DYNAMIC_CLIENTS=true only, decisions §11): registers an SP by its metadata, posted
 * as XML or fetched from `metadata_url` through the outbound guard; its certificates are checked.
 */
export function samlRegistrationRoute(app: FastifyInstance, ctx: MainContext): void {
  const register = ctx.saml.register;
  if (!register) return;
  const perHour = ctx.config.registrationsPerHour;
  app.post(
    '/saml/idp/sps',
    {
      config: {
        rateLimit: {
          max: perHour,
          timeWindow: 3_600_000,
          groupId: 'saml-sp-registration',
          allowList: () => false,
          keyGenerator: countedAddress(ctx.internalCaller),
          errorResponseBuilder: () =>
            oauthError('rate_limited', `At most ${perHour} SP registrations an hour from one address`),
        },
      },
      schema: {
        summary: 'Register an SP by its metadata (the DYNAMIC_CLIENTS extension)',
        tags: ['saml'],
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            metadata: { type: 'string', maxLength: 200_000, description: 'The SP metadata XML' },
            metadata_url: {
              type: 'string',
              maxLength: 2_000,
              description: 'Where to fetch it (through the outbound guard)',
            },
          },
        },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as { metadata?: string; metadata_url?: string };
      if ((body.metadata === undefined) === (body.metadata_url === undefined))
        throw invalidRequest('Give exactly one of metadata and metadata_url');
      const sp = await register({
        ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
        ...(body.metadata_url !== undefined ? { metadataUrl: body.metadata_url } : {}),
      });
      return reply.code(201).header('cache-control', 'no-store').send(spView(sp));
    },
  );
}
