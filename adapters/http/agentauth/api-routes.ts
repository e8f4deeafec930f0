import type { FastifyInstance } from 'fastify';
import { agentTokenEndpoint } from '../../../services/agentauth/token-grants.ts';
import type { MainContext } from '../main/context.ts';

const errorResponse = { $ref: 'OAuthError#' };
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** The agent registration endpoints of spec section 4 and decisions section 2. */
export async function agentAuthApiRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { agentAuth } = ctx;
  const tokenResponse = agentTokenEndpoint(agentAuth);

  app.post(
    '/agentauth/identity',
    {
      schema: {
        summary: 'Register an anonymous agent',
        tags: ['agentauth'],
        body: { type: 'object', properties: { type: { type: 'string', maxLength: 200 } } },
        response: {
          201: {
            type: 'object',
            required: ['identity_assertion', 'agent_id', 'claim_token'],
            properties: {
              identity_assertion: { type: 'string' },
              agent_id: { type: 'string' },
              claim_token: { type: 'string' },
              identity_type: { type: 'string' },
              claimed: { type: 'boolean' },
              expires_in: { type: 'integer' },
              token_endpoint: { type: 'string' },
              claim_endpoint: { type: 'string' },
              grant_type: { type: 'string' },
            },
          },
          400: errorResponse,
        },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as { type?: unknown };
      reply.code(201).headers(noStore);
      return agentAuth.register(body.type);
    },
  );

  app.post(
    '/agentauth/identity/claim',
    {
      schema: {
        summary: 'Start the claim ceremony that binds an agent to a person',
        tags: ['agentauth'],
        body: {
          type: 'object',
          required: ['claim_token', 'email'],
          properties: {
            claim_token: { type: 'string', minLength: 1, maxLength: 200 },
            email: { type: 'string', minLength: 3, maxLength: 254 },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              user_code: { type: 'string' },
              verification_uri: { type: 'string' },
              verification_uri_complete: { type: 'string' },
              expires_in: { type: 'integer' },
              interval: { type: 'integer' },
            },
          },
          400: errorResponse,
        },
      },
    },
    async (request, reply) => {
      const { claim_token, email } = request.body as { claim_token: string; email: string };
      reply.headers(noStore);
      return agentAuth.startClaim(claim_token, email);
    },
  );

  app.post(
    '/agentauth/token',
    {
      schema: {
        summary: 'Token endpoint: jwt-bearer assertion redemption (RFC 7523) or the claim grant',
        tags: ['agentauth'],
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          type: 'object',
          required: ['grant_type'],
          properties: {
            grant_type: { type: 'string', maxLength: 200 },
            assertion: { type: 'string', maxLength: 8192 },
            claim_token: { type: 'string', maxLength: 200 },
            scope: { type: 'string', maxLength: 200 },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              access_token: { type: 'string' },
              token_type: { type: 'string' },
              expires_in: { type: 'integer' },
              scope: { type: 'string' },
              identity_assertion: { type: 'string' },
              claimed: { type: 'boolean' },
            },
          },
          400: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.headers(noStore);
      return tokenResponse(request.body as Record<string, string | undefined>);
    },
  );

  app.post(
    '/agentauth/revoke',
    {
      schema: {
        summary: 'Revoke an agent by its claim token (RFC 7009): 200 whether or not it was recognised',
        tags: ['agentauth'],
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          type: 'object',
          required: ['token'],
          properties: {
            token: { type: 'string', maxLength: 8192 },
            token_type_hint: { type: 'string', maxLength: 100 },
          },
        },
        response: { 200: { type: 'null', description: 'Empty body' }, 400: errorResponse },
      },
    },
    async (request, reply) => {
      await agentAuth.revoke((request.body as { token: string }).token);
      return reply.code(200).send();
    },
  );

  app.get(
    '/agentauth/me',
    {
      schema: {
        summary: 'The agent an access token belongs to, as the log says now',
        tags: ['agentauth'],
        security: [{ bearer: [] }],
        response: {
          200: {
            type: 'object',
            properties: {
              agent_id: { type: 'string' },
              claimed: { type: 'boolean' },
              owner_email: { type: 'string' },
              scope: { type: 'string' },
              revoked: { type: 'boolean' },
            },
          },
          401: errorResponse,
          403: errorResponse,
        },
      },
    },
    async (request) => {
      const { claims, subject } = await agentAuth.resource.admit({
        authorization: request.headers.authorization,
        dpop: request.headers.dpop,
        method: request.method,
        url: `${ctx.config.baseUrl}/agentauth/me`,
      });
      return agentAuth.me(claims, subject);
    },
  );

  app.get(
    '/agentauth/jwks',
    { schema: { summary: 'Public keys of the agentic registration server', tags: ['agentauth'] } },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return ctx.keys.jwks('agentauth');
    },
  );
}
