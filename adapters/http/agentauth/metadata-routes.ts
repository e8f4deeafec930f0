import type { FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { agentAuthBlock, agentAuthMetadata } from '../../../services/agentauth/metadata.ts';
import type { MainContext } from '../main/context.ts';
import { htmlPage } from '../pages/respond.ts';
import { markdownBlocks } from '../../../services/pages/markdown-content.ts';
import { prefersMarkdown } from '../pages/negotiate.ts';

/** A browser's Accept: HTML named explicitly, and markdown not preferred (spec §4 rule 4). */
const asksForHtml = (accept: string | undefined) =>
  /(^|,)\s*(text\/html|application\/xhtml\+xml)\s*(;|,|$)/i.test(accept ?? '') && !prefersMarkdown(accept);
import { sendDocument } from '../main/documents.ts';

const AUTH_GUIDE = fileURLToPath(new URL('../../../content/guides/auth.md', import.meta.url));

/** Authorization-server metadata (RFC 8414) for agentauth and the origin, and the agent auth guide. */
export async function agentAuthMetadataRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const settings = ctx.agentAuth.settings;
  const agentauth = JSON.stringify(agentAuthMetadata(settings, base));
  // Built on first request, after every server has contributed its members.
  let origin: string | undefined;
  const originDocument = () =>
    (origin ??= JSON.stringify({ issuer: base, ...ctx.originMetadata, agent_auth: agentAuthBlock(settings, base) }));

  app.get(
    '/.well-known/oauth-authorization-server/agentauth',
    { schema: { summary: 'Metadata of the agentic registration server (RFC 8414)', tags: ['discovery'] } },
    (request, reply) => sendDocument(request, reply, agentauth, 'application/json'),
  );
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    app.get(
      path,
      { schema: { summary: 'Metadata of the origin issuer, with the agent_auth block', tags: ['discovery'] } },
      (request, reply) => sendDocument(request, reply, originDocument(), 'application/json'),
    );
  }

  const guide = (await readFile(AUTH_GUIDE, 'utf8'))
    .replaceAll('{{base_url}}', base)
    .replaceAll('{{claim_grant_type}}', settings.claimGrantType)
    .replaceAll('{{revocation_event_uri}}', settings.revocationEventUri);
  // Markdown by default (its name says so); a browser that asks for HTML gets the same guide as a page.
  const guidePage = htmlPage({
    title: 'Agent auth guide',
    blocks: [{ kind: 'heading', level: 1, text: 'Agent auth guide' }, ...markdownBlocks(guide.replace(/^# .*\n/, ''))],
  });
  app.get(
    '/auth.md',
    { schema: { summary: 'Agent auth guide (markdown; HTML to a browser that asks for it)', tags: ['discovery'] } },
    (request, reply) => {
      reply.header('vary', 'Accept');
      return asksForHtml(request.headers.accept)
        ? sendDocument(request, reply, guidePage, 'text/html; charset=utf-8')
        : sendDocument(request, reply, guide, 'text/markdown; charset=utf-8');
    },
  );
}
