import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../services/oauth/deps.ts';
import type { IssuerProfile } from '../../../services/oauth/issuers.ts';
import { userInfoClaims } from '../../../services/oauth/oauth-resource.ts';
import type { OAuthTokenServer } from '../../../services/oauth/token/oauth-server.ts';
import type { MainContext } from '../main/context.ts';
import { jsonObject } from '../response-schemas.ts';
import { logoutRoute } from './logout-route.ts';
import { errorResponse, formBody, noStore, str, userInfoResponse } from './schemas.ts';

/** `/oauth2/resource` (demo resource) and `/oidc/userinfo`. */
export function resourceRoutes(
  app: FastifyInstance,
  ctx: MainContext,
  deps: OAuthDeps,
  tokenEndpoint: OAuthTokenServer,
  profile: IssuerProfile,
): void {
  const base = ctx.config.baseUrl;
  const presented = (request: FastifyRequest) => ({
    authorization: request.headers.authorization,
    dpop: request.headers.dpop,
    method: request.method,
    url: `${base}${request.url.split('?')[0]}`,
  });
  if (profile.id === 'as') {
    app.get(
      '/oauth2/resource',
      {
        schema: {
          summary: 'Demo protected resource: Bearer, or DPoP with a proof carrying ath',
          tags: ['oauth2'],
          response: { 200: jsonObject('The demo resource and who asked for it'), 401: errorResponse },
        },
      },
      async (request) => {
        const { claims } = await ctx.oauth.demoResource.admit(presented(request));
        return {
          message: 'Access granted to the demo resource',
          sub: claims.sub,
          client_id: claims.client_id,
          scope: claims.scope,
          token_type: claims.cnf ? 'DPoP' : 'Bearer',
          ...(claims.cnf ? { cnf: claims.cnf } : {}),
        };
      },
    );
    return;
  }
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(noStore);
    const bodyToken =
      request.method === 'POST' ? ((request.body ?? {}) as { access_token?: string }).access_token : undefined;
    const { claims, subject } = await ctx.oauth.userInfo.admit({ ...presented(request), bodyToken });
    return userInfoClaims(subject, claims);
  };
  app.get(
    '/oidc/userinfo',
    {
      schema: {
        summary: 'UserInfo (Bearer token in the header; never the query)',
        tags: ['oidc'],
        response: { 200: userInfoResponse, 401: errorResponse },
      },
    },
    handler,
  );
  app.post(
    '/oidc/userinfo',
    {
      schema: {
        summary: 'UserInfo (token in the header or the form body)',
        tags: ['oidc'],
        consumes: ['application/x-www-form-urlencoded'],
        body: formBody({ access_token: str(8192) }),
        response: { 200: userInfoResponse, 400: errorResponse, 401: errorResponse },
      },
    },
    handler,
  );

  logoutRoute(app, ctx, deps, tokenEndpoint);
}
