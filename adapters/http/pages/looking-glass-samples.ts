import { signJwt } from '../../../services/crypto/jws.ts';
import type { Block } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import type { MainContext } from '../main/context.ts';

import { h, p } from './blocks.ts';

/**
 * Sample tokens of this origin's issuers, signed with their real keys so the signature verifies, but
 * already expired and addressed to no real audience: they teach, they open nothing.
 */
const sampleTokens = (ctx: MainContext): Array<{ label: string; token: string }> => {
  const now = Math.floor(ctx.clock.now() / 1000);
  const base = ctx.config.baseUrl;
  const common = { iat: now - 7200, nbf: now - 7200, exp: now - 3600, aud: 'https://sample.invalid' };
  return [
    {
      label: 'an OAuth 2.0 access token (RFC 9068)',
      token: signJwt(
        ctx.keys.signing('oauth2', 'ES256'),
        { typ: 'at+jwt' },
        {
          ...common,
          iss: `${base}/oauth2`,
          sub: 'alice',
          client_id: 'demo-app',
          scope: 'api:read',
          jti: 'sample-access-token',
        },
      ),
    },
    {
      label: 'an OpenID Connect ID token',
      token: signJwt(
        ctx.keys.signing('oidc', 'RS256'),
        { typ: 'JWT' },
        {
          ...common,
          iss: base,
          sub: 'alice',
          nonce: 'sample-nonce',
          auth_time: now - 7200,
          name: 'Alice Anderson',
          email: 'alice@example.com',
        },
      ),
    },
    {
      label: 'an agent identity assertion',
      token: signJwt(
        ctx.keys.signing('agentauth', 'ES256'),
        { typ: 'JWT' },
        {
          ...common,
          iss: `${base}/agentauth`,
          sub: 'agent-sample',
          jti: 'sample-assertion',
          claimed: false,
          assertion_version: 1,
        },
      ),
    },
  ];
};
/** The samples as one-click decode forms. */
export const samplesBlock = (ctx: MainContext): Block => ({
  kind: 'html',
  html: `<h2>Samples</h2><p>Tokens of this origin's issuers, signed with their keys, expired on purpose and addressed to no real audience: they show how a token of ours reads, and open nothing.</p><ul>${sampleTokens(
    ctx,
  )
    .map(
      (t) =>
        `<li><form method="post" action="/looking-glass" class="inline"><input type="hidden" name="token" value="${escapeHtml(t.token)}"><button type="submit" class="secondary">Decode ${escapeHtml(t.label)}</button></form></li>`,
    )
    .join('')}</ul>`,
  markdown: [
    h(2, 'Samples'),
    p(
      "Tokens of this origin's issuers, signed with their keys, expired on purpose and addressed to no real audience: they show how a token of ours reads, and open nothing.",
    ),
    { kind: 'list', items: sampleTokens(ctx).map((t) => [`${t.label}: `, { code: t.token }]) },
  ],
});
