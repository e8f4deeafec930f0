import type { FastifyInstance } from 'fastify';
import type { SamlPart } from '../main/graph-saml.ts';
import { sendAuthPage } from '../oauth/pages.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { signInCookieOf } from '../sign-in-cookie.ts';

/**
 * `{base}/saml/idp`: the IdP's page for people: its metadata, the demo SPs with IdP-initiated sign-in
 * (SAML profiles §4.1.5), and the session of this browser with its SPs and a sign-out (§4.4).
 */
export function samlIdpPage(app: FastifyInstance, saml: SamlPart): void {
  app.get(
    '/saml/idp',
    { schema: { summary: 'The SAML IdP’s page: IdP-initiated sign-in and single logout (HTML)', tags: ['saml'] } },
    async (request, reply) => {
      const { idp, serviceProviders } = await saml.services();
      const session = await idp.sessions.live(signInCookieOf(request));
      const options = serviceProviders
        .map((sp) => `<option value="${escapeHtml(sp.id)}">${escapeHtml(sp.name)}</option>`)
        .join('');
      return sendAuthPage(request, reply, 200, {
        title: 'SAML identity provider',
        blocks: [
          { kind: 'heading', level: 1, text: 'SAML identity provider' },
          {
            kind: 'paragraph',
            inlines: [
              'Entity ID ',
              { code: idp.urls.entityId },
              '. Metadata (signed): ',
              { link: '/saml/idp/metadata', href: '/saml/idp/metadata' },
              '. Demo SPs: ',
              { link: '/saml/demo/sps', href: '/saml/demo/sps' },
              '. Walk-through: ',
              { link: '/protocol/saml', href: '/protocol/saml' },
              '.',
            ],
          },
          { kind: 'heading', level: 2, text: 'Sign in to an SP from here (IdP-initiated)' },
          {
            kind: 'html',
            html: `<form method="post" action="/saml/idp/initiate"><label for="sp">Demo SP</label> <select id="sp" name="sp">${options}</select> <button type="submit">Sign in and send the assertion</button></form>`,
            markdown: [
              {
                kind: 'paragraph',
                inlines: ['POST ', { code: '/saml/idp/initiate' }, ' with ', { code: 'sp=<demo SP id>' }, '.'],
              },
            ],
          },
          { kind: 'heading', level: 2, text: 'Your session here' },
          session
            ? {
                kind: 'html',
                html: `<p>Signed in as <strong>${escapeHtml(session.user)}</strong> (${escapeHtml(session.authnContext)}), the same session as at the OpenID Provider; SPs of this session: ${
                  session.participants.map((p) => `<code>${escapeHtml(p.sp)}</code>`).join(', ') || 'none yet'
                }.</p><form method="post" action="/saml/idp/logout"><button type="submit">Sign out everywhere (single logout)</button></form><form method="post" action="/saml/idp/logout/skip"><button type="submit">An SP did not answer: skip it</button></form>`,
                markdown: [{ kind: 'paragraph', inlines: [`Signed in as ${session.user}.`] }],
              }
            : { kind: 'paragraph', inlines: ['No session in this browser.'] },
        ],
      });
    },
  );
}
