import type { FastifyInstance } from 'fastify';

import type { MainContext } from '../main/context.ts';
import { sendDocument } from '../main/documents.ts';
import { authorizationRoutes } from './authorization-routes.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';
import { sendAuthPage } from './pages.ts';
import { resourceRoutes } from './resource-routes.ts';
import { str } from './schemas.ts';
import { tokenRoutes } from './token-routes.ts';
import { parRoute } from './par-route.ts';
import { registrationRoutes } from './registration-routes.ts';

/** The OAuth 2.0 authorization server (`/oauth2`) and the OpenID Provider (`/oidc`) of decisions section 3. */
export async function oauthRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const { deps, clients, users, profiles, registrationEndpoint } = ctx.oauth;

  // Where the demo clients' browsers land: shows what the authorization server sent back.
  app.get(
    '/callback',
    {
      schema: {
        summary: 'Redirect target of the demo clients (HTML)',
        tags: ['oauth2'],
        querystring: {
          type: 'object',
          properties: Object.fromEntries(
            ['code', 'state', 'iss', 'error', 'error_description', 'session_state'].map((k) => [k, str()]),
          ),
        },
      },
    },
    async (request, reply) => {
      const q = request.query as Record<string, string>;
      return sendAuthPage(request, reply, 200, {
        title: 'Authorization response',
        blocks: [
          { kind: 'heading', level: 1, text: 'Authorization response' },
          {
            kind: 'paragraph',
            inlines: [
              'The authorization server redirected the browser here with these parameters. A client now redeems the ',
              { code: 'code' },
              ' at the token endpoint.',
            ],
          },
          {
            kind: 'table',
            head: ['Parameter', 'Value'],
            rows: Object.entries(q).map(([k, v]) => [[{ code: k }], [{ code: v }]]),
          },
        ],
      });
    },
  );

  app.get(
    '/oauth2/demo/clients',
    { schema: { summary: 'The published demo clients', tags: ['oauth2'] } },
    async () => ({ clients }),
  );
  app.get('/oauth2/demo/users', { schema: { summary: 'The published demo users', tags: ['oauth2'] } }, async () => ({
    users: users.map(({ id, name, email, password, roles, claims }) => ({ id, name, email, password, roles, claims })),
  }));

  for (const { profile, authorization, tokenEndpoint, introspection } of ctx.oauth.servers) {
    authorizationRoutes(app, { authorization, profile, deps, users });
    parRoute(app, { authorization, tokenEndpoint });
    tokenRoutes(app, ctx, { deps, profile, tokenEndpoint, introspection });
    resourceRoutes(app, ctx, deps, tokenEndpoint, profile);
  }

  // DYNAMIC_CLIENTS (decisions §11): registration and client ID metadata documents, off by default.
  if (registrationEndpoint)
    registrationRoutes(app, {
      deps,
      outbound: ctx.oauth.documentFetches,
      registrationsPerHour: ctx.config.registrationsPerHour,
      internal: ctx.internalCaller,
    });

  // Metadata (RFC 8414, OpenID Connect Discovery, RFC 9728).
  const asMetadata = JSON.stringify(authorizationServerMetadata(profiles.as, registrationEndpoint));
  app.get(
    '/.well-known/oauth-authorization-server/oauth2',
    { schema: { summary: 'Metadata of the OAuth 2.0 authorization server (RFC 8414)', tags: ['discovery'] } },
    (request, reply) => sendDocument(request, reply, asMetadata, 'application/json'),
  );
  const prm = protectedResourceMetadata(base, profiles);
  const originPrm = JSON.stringify(prm.origin);
  const userinfoPrm = JSON.stringify(prm.userinfo);
  app.get(
    '/.well-known/oauth-protected-resource',
    { schema: { summary: 'Protected resource metadata of the origin (RFC 9728)', tags: ['discovery'] } },
    (request, reply) => sendDocument(request, reply, originPrm, 'application/json'),
  );
  app.get(
    '/.well-known/oauth-protected-resource/oidc/userinfo',
    { schema: { summary: 'Protected resource metadata of UserInfo (RFC 9728)', tags: ['discovery'] } },
    (request, reply) => sendDocument(request, reply, userinfoPrm, 'application/json'),
  );
  app.get(
    '/.well-known/oauth-protected-resource/oauth2/resource',
    { schema: { summary: 'Protected resource metadata of the demo resource (RFC 9728)', tags: ['discovery'] } },
    (request, reply) => sendDocument(request, reply, JSON.stringify(prm.resource), 'application/json'),
  );
}
