import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorPage, formPostPage, sendAuthPage } from '../oauth/pages.ts';
import type { SsoOutcome } from '../../../services/saml/idp/service.ts';
import { setSignInCookie } from '../sign-in-cookie.ts';

/** A refusal with no endpoint of a known SP to send it to: shown here, naming its check (SAML profiles §4.1.3.5). */
export const samlErrorPage = (check: string, reason: string, title = 'This SAML request cannot continue') =>
  errorPage(
    check,
    reason,
    title,
    'No endpoint of a known SP can be trusted with this answer, so it is shown here instead of being sent back.',
  );

/** The HTTP-POST binding (SAML bindings §3.5.4): a form that posts the message, submitted on load. */
export function sendPostForm(
  reply: FastifyReply,
  message: { url: string; field: string; value: string; relayState?: string },
): FastifyReply {
  return reply
    .code(200)
    .header('cache-control', 'no-cache, no-store')
    .header('pragma', 'no-cache')
    .type('text/html; charset=utf-8')
    .send(
      formPostPage(message.url, {
        [message.field]: message.value,
        ...(message.relayState !== undefined ? { RelayState: message.relayState } : {}),
      }),
    );
}

/** Where an SSO step sends the browser: a POST form to the ACS, the login page, or an error page naming the check. */
export function sendSsoOutcome(
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: SsoOutcome,
  loginPath: string,
): FastifyReply {
  if (outcome.kind === 'login') return reply.redirect(`${loginPath}/${outcome.pendingId}`, 303);
  if (outcome.kind === 'error') return sendAuthPage(request, reply, 400, samlErrorPage(outcome.check, outcome.reason));
  if (outcome.newSession) setSignInCookie(reply, outcome.newSession);
  return sendPostForm(reply, outcome);
}
