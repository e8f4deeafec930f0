import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { oauthError } from '../../../services/errors.ts';
import type { OAuthDeps } from '../../../services/oauth/deps.ts';
import type { IssuerProfile } from '../../../services/oauth/issuers.ts';
import {
  invalidTokenError,
  ProtectedResource,
  type PresentedToken,
} from '../../../services/oauth/protected-resources.ts';
import { accessTokenFromHeader } from '../../../services/oauth/authorization-header.ts';
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
  userinfoMetadataUrl: string,
): void {
  const base = ctx.config.baseUrl;
  if (profile.id === 'as') {
    const resource = new ProtectedResource(
      deps,
      tokenEndpoint.tokens,
      profile,
      `${base}/.well-known/oauth-protected-resource/oauth2/resource`,
    );
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
        const presented = presentedFromHeader(request, base);
        if (!presented)
          throw invalidTokenError('An access token is required', {
            resourceMetadata: `${base}/.well-known/oauth-protected-resource/oauth2/resource`,
          });
        const claims = await resource.authorize(presented);
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
  const userinfo = new ProtectedResource(deps, tokenEndpoint.tokens, profile, userinfoMetadataUrl);
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(noStore);
    const fromHeader = presentedFromHeader(request, base);
    const bodyToken =
      request.method === 'POST' ? ((request.body ?? {}) as { access_token?: string }).access_token : undefined;
    if (fromHeader && bodyToken !== undefined)
      throw oauthError('invalid_request', 'Send the access token in one place only (RFC 6750 section 2)');
    const presented =
      fromHeader ??
      (bodyToken !== undefined
        ? {
            scheme: 'body' as const,
            token: bodyToken,
            method: request.method,
            url: `${base}${request.url.split('?')[0]}`,
          }
        : undefined);
    if (!presented)
      throw invalidTokenError('An access token is required in the Authorization header or the form body', {
        resourceMetadata: userinfoMetadataUrl,
      });
    return userinfo.userInfo(await userinfo.authorize(presented));
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

  logoutRoute(app, deps, tokenEndpoint);
}

/** The token of an `Authorization: Bearer|DPoP` header (RFC 6750 2.1, RFC 9449 7.1). */
function presentedFromHeader(request: FastifyRequest, base: string): PresentedToken | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const presented = accessTokenFromHeader(header);
  if (!presented) throw invalidTokenError('The Authorization header is malformed');
  return {
    ...presented,
    dpop: request.headers.dpop,
    method: request.method,
    url: `${base}${request.url.split('?')[0]}`,
  };
}
