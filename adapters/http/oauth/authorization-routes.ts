import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  UntrustedRedirectError,
  type Authorization,
  type AuthorizationOutcome,
} from '../../../services/oauth/authorization.ts';
import type { DemoUser } from '../../../services/oauth/demo-users.ts';
import type { OAuthDeps } from '../../../services/oauth/deps.ts';
import type { IssuerProfile } from '../../../services/oauth/issuers.ts';
import {
  consentHandler,
  consentPage,
  errorPage,
  formPostPage,
  loginPage,
  sendAuthPage,
  sendInteractionExpired,
} from './pages.ts';
import { confirmErrorRedirectPage } from './confirm-redirect-page.ts';
import { AUTHORIZE_PARAMS, formBody, noStore, str } from './schemas.ts';
import { overTls, setSignInCookie, signInCookieOf } from '../sign-in-cookie.ts';

/** The authorization endpoint of one issuer (RFC 6749 §4.1.1, OIDC Core §3.1.2.1) and its login and consent pages. */
export function authorizationRoutes(
  app: FastifyInstance,
  {
    authorization,
    profile,
    deps,
    users,
  }: { authorization: Authorization; profile: IssuerProfile; deps: OAuthDeps; users: DemoUser[] },
): void {
  const p = profile.prefix;
  const tag = profile.id === 'op' ? 'oidc' : 'oauth2';
  const respond = (reply: FastifyReply, outcome: AuthorizationOutcome): FastifyReply => {
    if (outcome.kind === 'interaction') return reply.redirect(`${p}/interaction/${outcome.id}`, 303);
    if (outcome.confirm) return sendAuthPage(reply.request, reply, 400, confirmErrorRedirectPage(outcome));
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
      return respond(reply, await authorization.start(params, signInCookieOf(request)));
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
    sendInteractionExpired(request, reply, 'the application');
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
      const secure = overTls(request, profile.issuer);
      const signedIn = await authorization.login(id, username, password, signInCookieOf(request), secure);
      if (!signedIn) {
        return sendAuthPage(
          request,
          reply,
          400,
          loginPage(`${p}/interaction/${id}/login`, view.client, users, 'Unknown user or wrong password.'),
        );
      }
      if (signedIn.newCookie) setSignInCookie(reply, signedIn.newCookie);
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
    consentHandler({
      view: (id) => authorization.view(id),
      expired,
      consentPageOf: (id, view) =>
        consentPage(`${p}/interaction/${id}/consent`, view.client, view.request, deps.users.get(view.sub!)!),
      decide: async (id, approve, reply) =>
        respond(reply, await authorization.decide(id, approve, signInCookieOf(reply.request))),
    }),
  );
}
