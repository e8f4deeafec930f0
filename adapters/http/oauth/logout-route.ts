import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthDeps } from '../../../services/oauth/deps.ts';
import type { OAuthTokenServer } from '../../../services/oauth/token/oauth-server.ts';
import type { MainContext } from '../main/context.ts';
import { sendLogout } from '../saml/logout-routes.ts';
import { clearSignInCookie, signInCookieOf } from '../sign-in-cookie.ts';
import { errorPage, sendAuthPage } from './pages.ts';
import { str } from './schemas.ts';

/**
 * Ends the browser's sign-in session, which the SAML IdP shares: when SAML SPs received assertions in it,
 * each is sent a LogoutRequest first (SAML profiles §4.4) and the browser reaches `returnTo` after the last.
 */
async function endSignInSession(
  ctx: MainContext,
  request: FastifyRequest,
  reply: FastifyReply,
  returnTo: string | undefined,
): Promise<FastifyReply | 'ended' | 'none'> {
  const cookie = signInCookieOf(request);
  const session = await ctx.oauth.sessions.live(cookie);
  if (!session) return 'none';
  if (session.participants.length)
    return sendLogout(request, reply, await (await ctx.saml.services()).idpLogout.start(cookie, returnTo));
  await ctx.oauth.sessions.end(cookie!);
  clearSignInCookie(reply);
  return 'ended';
}

/** `/oidc/logout`: RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2-3). */
export function logoutRoute(
  app: FastifyInstance,
  ctx: MainContext,
  deps: OAuthDeps,
  tokenEndpoint: OAuthTokenServer,
): void {
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
      let returnTo: string | undefined;
      if (q.post_logout_redirect_uri) {
        const client = await deps.clients.find(clientId).catch(() => undefined);
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
        returnTo = target.href;
      }
      const ended = await endSignInSession(ctx, request, reply, returnTo);
      if (typeof ended !== 'string') return ended;
      if (returnTo) return reply.redirect(returnTo, 303);
      return sendAuthPage(request, reply, 200, {
        title: 'Signed out',
        blocks: [
          { kind: 'heading', level: 1, text: 'Signed out' },
          {
            kind: 'paragraph',
            inlines: [
              ended === 'ended'
                ? 'The sign-in session of this browser is ended, at the OpenID Provider and at the SAML IdP alike.'
                : 'There was no sign-in session in this browser.',
            ],
          },
        ],
      });
    },
  );
}
