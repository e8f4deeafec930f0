import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { oauthError } from '../../../services/errors.ts';
import {
  Authorization,
  UntrustedRedirectError,
  type AuthorizationOutcome,
} from '../../../services/oauth/authorization.ts';
import { demoClients } from '../../../services/oauth/demo-clients.ts';
import { demoUsers } from '../../../services/oauth/demo-users.ts';
import { OAuthDeps } from '../../../services/oauth/deps.ts';
import { TokenIntrospection } from '../../../services/oauth/introspection.ts';
import { issuerProfiles, type IssuerProfile } from '../../../services/oauth/issuers.ts';
import {
  ProtectedResource,
  accessTokenFromHeader,
  invalidTokenError,
  type PresentedToken,
} from '../../../services/oauth/protected-resources.ts';
import { TokenEndpoint } from '../../../services/oauth/token/endpoint.ts';
import { jsonObject } from '../response-schemas.ts';

const userInfoResponse = jsonObject("UserInfo claims of the token's user (OpenID Connect Core §5.3.2)", {
  sub: { type: 'string' },
});
import type { MainContext } from '../main/context.ts';
import { sendDocument } from '../main/documents.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';
import { consentPage, errorPage, formPostPage, loginPage, sendAuthPage } from './pages.ts';

const errorResponse = { $ref: 'OAuthError#' };
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
const formBody = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  required,
  properties: Object.fromEntries(
    Object.entries(properties).map(([k, v]) => [k, v ?? { type: 'string', maxLength: 4096 }]),
  ),
});
const str = (max = 4096) => ({ type: 'string', maxLength: max });
const clientAuthFields = {
  client_id: str(200),
  client_secret: str(500),
  client_assertion_type: str(200),
  client_assertion: str(8192),
};
const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'response_mode',
  'prompt',
  'request',
  'request_uri',
  'max_age',
  'login_hint',
  'ui_locales',
  'claims',
  'acr_values',
  'display',
  'resource',
];

/** The OAuth 2.0 authorization server (`/oauth2`) and the OpenID Provider (`/oidc`) of decisions section 3. */
export async function oauthRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const pkjwt = ctx.keys;
  const clients = demoClients(base, ctx.config.demo, {
    public: pkjwt.jwks('published:pkjwt-app').keys,
    private: pkjwt.publishedPrivateJwks('published:pkjwt-app').keys,
  });
  const users = demoUsers(ctx.config.demo);
  const deps = new OAuthDeps(
    ctx.log,
    ctx.keys,
    ctx.clock,
    clients,
    users,
    ctx.revokedAccessTokens,
    ctx.config.dpopNonceRequired,
  );
  const profiles = issuerProfiles(base);
  const userinfoMetadataUrl = `${base}/.well-known/oauth-protected-resource/oidc/userinfo`;

  const endpointUrl = (request: FastifyRequest) => `${base}${request.url.split('?')[0]}`;

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
    const tokenEndpoint = new TokenEndpoint(deps, profile);
    const introspection = new TokenIntrospection(deps, tokenEndpoint);
    const p = profile.prefix;
    const tag = profile.id === 'op' ? 'oidc' : 'oauth2';

    const respond = (reply: FastifyReply, outcome: AuthorizationOutcome): FastifyReply => {
      if (outcome.kind === 'interaction') return reply.redirect(`${p}/interaction/${outcome.id}`, 303);
      if (outcome.responseMode === 'form_post') {
        return reply
          .code(200)
          .headers(noStore)
          .type('text/html; charset=utf-8')
          .send(formPostPage(outcome.redirectUri, outcome.params));
      }
      const target = new URL(outcome.redirectUri);
      for (const [k, v] of Object.entries(outcome.params)) target.searchParams.set(k, v);
      return reply.headers(noStore).redirect(target.href, 303);
    };
    const authorize = async (
      params: Record<string, string | undefined>,
      request: FastifyRequest,
      reply: FastifyReply,
    ) => {
      try {
        return respond(reply, await authorization.start(params));
      } catch (error) {
        if (error instanceof UntrustedRedirectError)
          return sendAuthPage(request, reply, error.status, errorPage(error.error, error.description));
        throw error;
      }
    };
    const authorizeSchema = { type: 'object', properties: Object.fromEntries(AUTHORIZE_PARAMS.map((k) => [k, str()])) };
    app.get(
      `${p}/authorize`,
      { schema: { summary: 'Authorization endpoint (RFC 6749 4.1.1)', tags: [tag], querystring: authorizeSchema } },
      (request, reply) => authorize(request.query as Record<string, string>, request, reply),
    );
    app.post(
      `${p}/authorize`,
      {
        schema: {
          summary: 'Authorization endpoint, form-encoded (OIDC Core 3.1.2.1)',
          tags: [tag],
          body: authorizeSchema,
        },
      },
      (request, reply) => authorize(request.body as Record<string, string>, request, reply),
    );

    const interactionParams = { type: 'object', required: ['id'], properties: { id: str(64) } };
    const expired = (request: FastifyRequest, reply: FastifyReply) =>
      sendAuthPage(
        request,
        reply,
        400,
        errorPage(
          'invalid_request',
          'This sign-in is unknown, finished or expired. Start again from the application.',
          'Sign-in expired',
        ),
      );
    app.get(
      `${p}/interaction/:id`,
      { schema: { summary: 'Login and consent pages (HTML)', tags: [tag], params: interactionParams } },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const view = await authorization.view(id);
        if (!view) return expired(request, reply);
        if (view.step === 'login')
          return sendAuthPage(request, reply, 200, loginPage(`${p}/interaction/${id}/login`, view.client, users));
        return sendAuthPage(
          request,
          reply,
          200,
          consentPage(`${p}/interaction/${id}/consent`, view.client, view.request, deps.users.get(view.sub!)!),
        );
      },
    );
    app.post(
      `${p}/interaction/:id/login`,
      {
        schema: {
          summary: 'Sign in as a demo user (form post)',
          tags: [tag],
          params: interactionParams,
          body: formBody({ username: str(100), password: str(200) }),
        },
      },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const view = await authorization.view(id);
        if (!view || view.step !== 'login') return expired(request, reply);
        const { username = '', password = '' } = (request.body ?? {}) as { username?: string; password?: string };
        if (!(await authorization.login(id, username, password))) {
          return sendAuthPage(
            request,
            reply,
            400,
            loginPage(`${p}/interaction/${id}/login`, view.client, users, 'Unknown user or wrong password.'),
          );
        }
        return reply.redirect(`${p}/interaction/${id}`, 303);
      },
    );
    app.post(
      `${p}/interaction/:id/consent`,
      {
        schema: {
          summary: 'Allow or deny (form post)',
          tags: [tag],
          params: interactionParams,
          body: formBody({ decision: str(20) }),
        },
      },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const view = await authorization.view(id);
        if (!view || view.step !== 'consent') return expired(request, reply);
        const decision = ((request.body ?? {}) as { decision?: string }).decision;
        if (decision !== 'approve' && decision !== 'deny')
          return sendAuthPage(
            request,
            reply,
            400,
            consentPage(`${p}/interaction/${id}/consent`, view.client, view.request, deps.users.get(view.sub!)!),
          );
        return respond(reply, await authorization.decide(id, decision === 'approve'));
      },
    );

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
          body: formBody({ token: str(8192), token_type_hint: str(100), ...clientAuthFields }),
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
          body: formBody({ token: str(8192), token_type_hint: str(100), ...clientAuthFields }),
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

    registerResource(app, ctx, deps, tokenEndpoint, profile, userinfoMetadataUrl);
  }

  // Metadata (RFC 8414, OpenID Connect Discovery, RFC 9728).
  Object.assign(ctx.originMetadata, authorizationServerMetadata(profiles.op));
  const asMetadata = JSON.stringify(authorizationServerMetadata(profiles.as));
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

/** `/oauth2/resource` (demo resource) and `/oidc/userinfo`. */
function registerResource(
  app: FastifyInstance,
  ctx: MainContext,
  deps: OAuthDeps,
  tokenEndpoint: TokenEndpoint,
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

  app.get(
    '/oidc/logout',
    {
      schema: {
        summary: 'RP-initiated logout',
        tags: ['oidc'],
        querystring: {
          type: 'object',
          properties: {
            id_token_hint: str(8192),
            post_logout_redirect_uri: str(2000),
            state: str(500),
            client_id: str(200),
          },
        },
      },
    },
    async (request, reply) => {
      const q = request.query as Record<string, string | undefined>;
      const hint = q.id_token_hint ? await tokenEndpoint.tokens.verifyIdTokenHint(q.id_token_hint) : undefined;
      if (q.id_token_hint && !hint)
        return sendAuthPage(
          request,
          reply,
          400,
          errorPage('invalid_request', 'id_token_hint was not issued by this provider'),
        );
      const clientId = q.client_id ?? (typeof hint?.aud === 'string' ? hint.aud : undefined);
      if (hint && q.client_id && hint.aud !== q.client_id)
        return sendAuthPage(
          request,
          reply,
          400,
          errorPage('invalid_request', 'client_id does not match id_token_hint'),
        );
      if (q.post_logout_redirect_uri) {
        const client = clientId ? deps.clients.get(clientId) : undefined;
        if (!client || !client.post_logout_redirect_uris.includes(q.post_logout_redirect_uri)) {
          return sendAuthPage(
            request,
            reply,
            400,
            errorPage('invalid_request', 'post_logout_redirect_uri is not registered for the client'),
          );
        }
        const target = new URL(q.post_logout_redirect_uri);
        if (q.state !== undefined) target.searchParams.set('state', q.state);
        return reply.redirect(target.href, 303);
      }
      return sendAuthPage(request, reply, 200, {
        title: 'Signed out',
        blocks: [
          { kind: 'heading', level: 1, text: 'Signed out' },
          {
            kind: 'paragraph',
            inlines: ['This provider keeps no sign-in session: every authorization asks the person to sign in again.'],
          },
        ],
      });
    },
  );
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
