import type { FastifyInstance } from 'fastify';
import { Authorization } from '../../../services/oauth/authorization.ts';
import { demoClients } from '../../../services/oauth/demo-clients.ts';
import { demoUsers } from '../../../services/oauth/demo-users.ts';
import { OAuthDeps } from '../../../services/oauth/deps.ts';
import { TokenIntrospection } from '../../../services/oauth/introspection.ts';
import { issuerProfiles } from '../../../services/oauth/issuers.ts';
import { OAuthTokenServer } from '../../../services/oauth/token/oauth-server.ts';

import type { MainContext } from '../main/context.ts';
import { sendDocument } from '../main/documents.ts';
import { authorizationRoutes } from './authorization-routes.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';
import { sendAuthPage } from './pages.ts';
import { resourceRoutes } from './resource-routes.ts';
import { ProtectedResource } from '../../../services/oauth/protected-resources.ts';
import { str } from './schemas.ts';
import { tokenRoutes } from './token-routes.ts';
import { parRoute } from './par-route.ts';
import { registrationRoutes } from './registration-routes.ts';
import { documentGuard } from '../../outbound/document-guard.ts';
import { ClientMetadataDocuments } from '../../../services/oauth/clients/metadata-document.ts';

/** The OAuth 2.0 authorization server (`/oauth2`) and the OpenID Provider (`/oidc`) of decisions section 3. */
export async function oauthRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const pkjwt = ctx.keys;
  const clients = demoClients(base, ctx.config.demo, {
    public: pkjwt.jwks('published:pkjwt-app').keys,
    private: pkjwt.publishedPrivateJwks('published:pkjwt-app').keys,
  });
  const users = demoUsers(ctx.config.demo);
  // DYNAMIC_CLIENTS (decisions §11): registration and client ID metadata documents, off by default.
  const dynamicClients = ctx.config.extensions.dynamicClients;
  const registrationEndpoint = dynamicClients ? `${base}/oauth2/register` : undefined;
  const documentFetches = documentGuard(new URL(base).origin, ctx.config.outboundAllowLoopback);
  ctx.onClose.push(() => documentFetches.close());
  const deps = new OAuthDeps(ctx.log, {
    keys: ctx.keys,
    clock: ctx.clock,
    clients,
    users,
    revoked: ctx.revokedAccessTokens,
    dpopNonceRequired: ctx.config.dpopNonceRequired,
    registrationUri: (clientId) => `${base}/oauth2/register/${encodeURIComponent(clientId)}`,
    ...(dynamicClients ? { documents: new ClientMetadataDocuments(documentFetches, ctx.clock) } : {}),
    outbound: documentFetches,
  });
  const profiles = issuerProfiles(base);
  const userinfoMetadataUrl = `${base}/.well-known/oauth-protected-resource/oidc/userinfo`;

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

  for (const profile of [profiles.op, profiles.as]) {
    const authorization = new Authorization(deps, profile);
    const tokenEndpoint = new OAuthTokenServer(deps, profile);
    const introspection = new TokenIntrospection(deps, tokenEndpoint);
    authorizationRoutes(app, { authorization, profile, deps, users });
    parRoute(app, { authorization, tokenEndpoint });

    tokenRoutes(app, ctx, { deps, profile, tokenEndpoint, introspection });
    resourceRoutes(app, ctx, deps, tokenEndpoint, profile, userinfoMetadataUrl);
    // Other parts of the origin (Shared Signals) protect their APIs with this server's access tokens.
    if (profile.id === 'as')
      ctx.oauthResource = (resourceMetadata, audience) =>
        new ProtectedResource(deps, tokenEndpoint.tokens, profile, resourceMetadata, audience);
  }

  if (dynamicClients)
    registrationRoutes(app, {
      deps,
      outbound: documentFetches,
      registrationsPerHour: ctx.config.registrationsPerHour,
      internal: ctx.internalCaller,
    });

  // Metadata (RFC 8414, OpenID Connect Discovery, RFC 9728).
  Object.assign(ctx.originMetadata, authorizationServerMetadata(profiles.op, registrationEndpoint));
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

  Object.assign(ctx.apiEndpoints, {
    oauth2_metadata: '/.well-known/oauth-authorization-server/oauth2',
    openid_configuration: '/.well-known/openid-configuration',
    demo_clients: '/oauth2/demo/clients',
    demo_users: '/oauth2/demo/users',
    userinfo: '/oidc/userinfo',
  });
}
