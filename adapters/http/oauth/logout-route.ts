import type { FastifyInstance } from 'fastify';
import type { OAuthDeps } from '../../../services/oauth/deps.ts';
import type { OAuthTokenServer } from '../../../services/oauth/token/oauth-server.ts';
import { errorPage, sendAuthPage } from './pages.ts';
import { str } from './schemas.ts';

/** `/oidc/logout`: RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2-3). */
export function logoutRoute(app: FastifyInstance, deps: OAuthDeps, tokenEndpoint: OAuthTokenServer): void {
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
