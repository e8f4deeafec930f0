import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SamlPart } from '../main/graph-saml.ts';
import { sendAuthPage } from '../oauth/pages.ts';
import { formBody, str } from '../oauth/schemas.ts';
import type { LogoutOutcome } from '../../../services/saml/idp/logout.ts';
import { samlErrorPage, sendPostForm } from './post-form.ts';
import { clearSignInCookie, signInCookieOf } from '../sign-in-cookie.ts';
import { overPost, overRedirect, type Received } from './received.ts';

export function sendLogout(request: FastifyRequest, reply: FastifyReply, outcome: LogoutOutcome): FastifyReply {
  if (outcome.kind === 'error')
    return sendAuthPage(
      request,
      reply,
      400,
      samlErrorPage(outcome.check, outcome.reason, 'This SAML logout cannot continue'),
    );
  if ('endSession' in outcome && outcome.endSession) clearSignInCookie(reply);
  if (outcome.kind === 'done' && outcome.returnTo !== undefined)
    return reply.header('cache-control', 'no-store').redirect(outcome.returnTo, 303);
  if (outcome.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(outcome.url, 303);
  if (outcome.kind === 'post') return sendPostForm(reply, outcome);
  return sendAuthPage(request, reply, 200, {
    title: 'Signed out',
    blocks: [
      { kind: 'heading', level: 1, text: 'Signed out' },
      {
        kind: 'paragraph',
        inlines: [
          outcome.failed.length
            ? `Partial logout (SAML core §3.7.3.2): these SPs did not confirm: ${outcome.failed.join(', ')}.`
            : 'Every SP of the session confirmed the logout.',
        ],
      },
    ],
  });
}

/** Single logout at the IdP (SAML profiles §4.4) over both bindings, and logout started at the IdP. */
export function samlLogoutRoutes(app: FastifyInstance, saml: SamlPart): void {
  const receive = async (request: FastifyRequest, reply: FastifyReply, received: Received) =>
    sendLogout(
      request,
      reply,
      'refused' in received
        ? { kind: 'error', ...received.refused }
        : await (await saml.services()).idpLogout.receive(received, signInCookieOf(request)),
    );
  app.get(
    '/saml/idp/slo',
    { schema: { summary: 'Single logout, HTTP-Redirect binding (SAML bindings §3.4)', tags: ['saml'] } },
    (request, reply) => receive(request, reply, overRedirect(request)),
  );
  app.post(
    '/saml/idp/slo',
    {
      schema: {
        summary: 'Single logout, HTTP-POST binding (SAML bindings §3.5)',
        tags: ['saml'],
        body: formBody({ SAMLRequest: str(400_000), SAMLResponse: str(400_000), RelayState: str(80) }),
      },
    },
    (request, reply) => receive(request, reply, overPost(request.body as Parameters<typeof overPost>[0])),
  );
  app.post(
    '/saml/idp/logout',
    {
      schema: { summary: 'Sign out at the IdP: every SP of the session is told (SAML profiles §4.4)', tags: ['saml'] },
    },
    async (request, reply) =>
      sendLogout(request, reply, await (await saml.services()).idpLogout.start(signInCookieOf(request))),
  );
  app.post(
    '/saml/idp/logout/skip',
    {
      schema: { summary: 'The SP awaited by single logout did not answer: count it failed and go on', tags: ['saml'] },
    },
    async (request, reply) =>
      sendLogout(request, reply, await (await saml.services()).idpLogout.skip(signInCookieOf(request))),
  );
}
