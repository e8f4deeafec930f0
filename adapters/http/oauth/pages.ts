import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DemoClient } from '../../../services/oauth/demo-clients.ts';
import type { DemoUser } from '../../../services/oauth/demo-users.ts';
import type { AuthorizationRequest } from '../../../machines/interaction.ts';
import type { Block, PageDocument } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { sendPage } from '../pages/respond.ts';

/** Login, consent and error pages of the authorization servers: never cached, never framed. */
export function sendAuthPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  doc: PageDocument,
): FastifyReply {
  reply
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header(
      'content-security-policy',
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action *; frame-ancestors 'none'",
    );
  return sendPage(request, reply, { ...doc, noindex: true }, status);
}

export function loginPage(
  action: string,
  client: Pick<DemoClient, 'client_id' | 'client_name'>,
  users: DemoUser[],
  error?: string,
): PageDocument {
  return {
    title: 'Sign in',
    blocks: [
      { kind: 'heading', level: 1, text: 'Sign in' },
      {
        kind: 'paragraph',
        inlines: [{ strong: client.client_name }, ' (', { code: client.client_id }, ') asks you to sign in.'],
      },
      {
        kind: 'notice',
        tone: 'info',
        inlines: [
          'Demo users and their passwords are published at ',
          { link: '/oauth2/demo/users', href: '/oauth2/demo/users' },
          '.',
        ],
      },
      ...(error ? [{ kind: 'notice', tone: 'error', inlines: [error] } satisfies Block] : []),
      {
        kind: 'html',
        html: `<form method="post" action="${escapeHtml(action)}">
<label for="username">Demo user</label>
<select id="username" name="username">${users.map((u) => `<option value="${escapeHtml(u.id)}">${escapeHtml(`${u.name} (${u.id})`)}</option>`).join('')}</select>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div><button type="submit">Sign in</button></div>
</form>`,
        markdown: [
          {
            kind: 'paragraph',
            inlines: [
              'Sign in: ',
              { code: `POST ${action}` },
              ' with form fields ',
              { code: 'username' },
              ' and ',
              { code: 'password' },
              '.',
            ],
          },
        ],
      },
    ],
  };
}

export function consentPage(
  action: string,
  client: Pick<DemoClient, 'client_id' | 'client_name'>,
  request: AuthorizationRequest,
  user: DemoUser,
): PageDocument {
  return {
    title: 'Allow access?',
    blocks: [
      { kind: 'heading', level: 1, text: 'Allow access?' },
      { kind: 'paragraph', inlines: ['Signed in as ', { strong: user.name }, ' (', { code: user.id }, ').'] },
      { kind: 'paragraph', inlines: [{ strong: client.client_name }, ' (', { code: client.client_id }, ') asks for:'] },
      { kind: 'list', items: request.scope.split(' ').map((s) => [{ code: s }]) },
      ...(request.resource
        ? [{ kind: 'paragraph' as const, inlines: ['The access is for ', { code: request.resource }, ' only.'] }]
        : []),
      { kind: 'paragraph', inlines: ['It will be sent back to ', { code: request.redirectUri }, '.'] },
      {
        kind: 'html',
        html: `<form method="post" action="${escapeHtml(action)}"><button type="submit" name="decision" value="approve">Allow</button> <button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`,
        markdown: [
          {
            kind: 'paragraph',
            inlines: [
              'Decide: ',
              { code: `POST ${action}` },
              ' with ',
              { code: 'decision=approve' },
              ' or ',
              { code: 'decision=deny' },
              '.',
            ],
          },
        ],
      },
    ],
  };
}

export function errorPage(
  error: string,
  description: string,
  title = 'This request cannot continue',
  why = "The client's redirect URI could not be trusted, so the error is shown here instead of being sent back.",
): PageDocument {
  return {
    title,
    blocks: [
      { kind: 'heading', level: 1, text: title },
      { kind: 'notice', tone: 'error', inlines: [{ code: error }, `: ${description}`] },
      { kind: 'paragraph', inlines: [why] },
    ],
  };
}

/** RFC 6749 section 4.1.2 with response_mode=form_post (OAuth 2.0 Form Post Response Mode). */
/** Each parameter as a hidden input of a form (form_post, OAuth 2.0 Form Post Response Mode). */
export const hiddenInputs = (params: Record<string, string>): string =>
  Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');

export function formPostPage(redirectUri: string, params: Record<string, string>): string {
  const inputs = hiddenInputs(params);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Submitting…</title></head>
<body onload="document.forms[0].submit()"><form method="post" action="${escapeHtml(redirectUri)}">${inputs}
<noscript><button type="submit">Continue</button></noscript></form></body></html>`;
}

/** The person's answer on a consent page: approve or deny; anything else shows the page again. */
function consentDecision(body: unknown): 'approve' | 'deny' | undefined {
  const decision = ((body ?? {}) as { decision?: unknown }).decision;
  return decision === 'approve' || decision === 'deny' ? decision : undefined;
}

/**
 * `POST …/consent` of an interaction (both authorization servers' sign-in pages): only at the consent
 * step; approve or deny goes on, anything else shows the consent page again with 400.
 */
export function consentHandler<V extends { step: string }>(options: {
  view(id: string): Promise<V | undefined>;
  expired(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  consentPageOf(id: string, view: V): PageDocument;
  decide(id: string, approve: boolean, reply: FastifyReply): Promise<FastifyReply>;
}) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { id } = request.params as { id: string };
    const view = await options.view(id);
    if (!view || view.step !== 'consent') return options.expired(request, reply);
    const decision = consentDecision(request.body);
    if (!decision) return sendAuthPage(request, reply, 400, options.consentPageOf(id, view));
    return options.decide(id, decision === 'approve', reply);
  };
}

/** The page of an interaction that is unknown, finished or expired: 400, and where to start again. */
export const sendInteractionExpired = (request: FastifyRequest, reply: FastifyReply, startAgainFrom: string) =>
  sendAuthPage(
    request,
    reply,
    400,
    errorPage(
      'invalid_request',
      `This sign-in is unknown, finished or expired. Start again from ${startAgainFrom}.`,
      'Sign-in expired',
    ),
  );
