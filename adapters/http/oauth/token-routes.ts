import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../services/oauth/deps.ts';
import type { TokenIntrospection } from '../../../services/oauth/introspection.ts';
import type { IssuerProfile } from '../../../services/oauth/issuers.ts';
import type { OAuthTokenServer } from '../../../services/oauth/token/oauth-server.ts';
import type { MainContext } from '../main/context.ts';
import { jsonObject } from '../response-schemas.ts';
import { clientAuthFields, errorResponse, formBody, noStore, str } from './schemas.ts';

/** The token, introspection (RFC 7662) and revocation (RFC 7009) endpoints and the JWKS of one issuer. */
export function tokenRoutes(
  app: FastifyInstance,
  ctx: MainContext,
  {
    deps,
    profile,
    tokenEndpoint,
    introspection,
  }: { deps: OAuthDeps; profile: IssuerProfile; tokenEndpoint: OAuthTokenServer; introspection: TokenIntrospection },
): void {
  const base = ctx.config.baseUrl;
  const p = profile.prefix;
  const tag = profile.id === 'op' ? 'oidc' : 'oauth2';
  const endpointUrl = (request: FastifyRequest) => `${base}${request.url.split('?')[0]}`;
  /** RFC 7662 §2.1 and RFC 7009 §2.1: the token, its type hint, and the client's authentication. */
  const tokenManagementBody = formBody({ token: str(8192), token_type_hint: str(100), ...clientAuthFields });
  app.post(
    `${p}/token`,
    {
      schema: {
        summary: 'Token endpoint (authorization_code, refresh_token, client_credentials; optional DPoP)',
        tags: [tag],
        consumes: ['application/x-www-form-urlencoded'],
        body: formBody({
          grant_type: str(200),
          code: str(200),
          redirect_uri: str(2000),
          code_verifier: str(200),
          refresh_token: str(200),
          scope: str(1000),
          resource: str(2000),
          ...clientAuthFields,
        }),
        response: {
          200: {
            type: 'object',
            additionalProperties: true,
            properties: {
              access_token: str(),
              token_type: str(),
              expires_in: { type: 'integer' },
              scope: str(),
              refresh_token: str(),
              id_token: str(),
            },
          },
          400: errorResponse,
          401: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.headers(noStore);
      if (deps.dpopNonceRequired) reply.header('dpop-nonce', deps.nonces.current());
      return tokenEndpoint.handle({
        body: request.body as Record<string, string>,
        authorization: request.headers.authorization,
        dpop: request.headers.dpop,
        url: endpointUrl(request),
      });
    },
  );

  app.post(
    `${p}/introspect`,
    {
      schema: {
        summary: 'Token introspection (RFC 7662), for authenticated clients',
        tags: [tag],
        consumes: ['application/x-www-form-urlencoded'],
        body: tokenManagementBody,
        response: {
          200: jsonObject("Introspection response (RFC 7662 §2.2): active, and the token's claims when active", {
            active: { type: 'boolean' },
          }),
          400: errorResponse,
          401: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.headers(noStore);
      return introspection.introspect({
        body: request.body as Record<string, string>,
        authorization: request.headers.authorization,
      });
    },
  );

  app.post(
    `${p}/revoke`,
    {
      schema: {
        summary: 'Token revocation (RFC 7009), for authenticated clients',
        tags: [tag],
        consumes: ['application/x-www-form-urlencoded'],
        body: tokenManagementBody,
        response: { 200: { type: 'null' }, 400: errorResponse, 401: errorResponse },
      },
    },
    async (request, reply) => {
      await introspection.revoke({
        body: request.body as Record<string, string>,
        authorization: request.headers.authorization,
      });
      return reply.code(200).send();
    },
  );

  app.get(`${p}/jwks`, { schema: { summary: 'Public signing keys', tags: [tag] } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return ctx.keys.jwks(profile.keySet);
  });
}
