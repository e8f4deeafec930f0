import { fileURLToPath } from 'node:url';
import { renderSkills } from '../../../services/discovery/skills.ts';
import { notFound } from '../../../services/errors.ts';
import { walletApiCatalog, walletLlmsTxt, walletRecipes, walletRobotsTxt } from '../../../services/wallet/documents.ts';
import { renderMarkdown } from '../../../services/pages/render-markdown.ts';
import { sendDocument } from '../main/documents.ts';
import type { WalletRoutes } from './context.ts';
import { requestOrigin } from './origin.ts';
import { WALLET_CHROME } from './chrome.ts';
import { walletHomePage } from './home-page.ts';
import { requestSession } from './request-session.ts';
import { sendPage } from '../pages/respond.ts';
import { prefersMarkdown } from '../pages/negotiate.ts';
import type { FastifyRequest } from 'fastify';
import { nodeFiles } from '../../files/node-files.ts';

const WALLET_CONTENT = fileURLToPath(new URL('../../../content/wallet', import.meta.url));
const ORIGIN_PLACEHOLDER = '{{wallet_url}}';

/** The wallet origin's discovery surfaces (spec section 4 wallet table, decisions section 10). */
export const discoveryRoutes: WalletRoutes = (app, ctx) => {
  // Rendered once with the origin left as a placeholder; each request substitutes the origin it reached.
  const skills = renderSkills(nodeFiles, WALLET_CONTENT, {});
  const skill = (origin: string) => {
    const template = skills.find((s) => s.name === 'use-wallet-harness');
    if (!template) throw notFound('No such skill');
    return template.markdown.split(ORIGIN_PLACEHOLDER).join(origin);
  };
  const doc = (summary: string) => ({ schema: { summary } });

  app.get('/health', doc('Health of the wallet harness'), async () => ({
    status: 'ok',
    service: 'wallet',
    mode: ctx.trust.mode,
    haip_enabled: ctx.settings.haipEnabled,
    device_key_persistent: ctx.deviceKey.persistent,
  }));
  app.get('/llms.txt', doc('Profile: what the wallet is, where to start'), (request, reply) =>
    sendDocument(
      request,
      reply,
      walletLlmsTxt(requestOrigin(ctx, request), ctx.config.baseUrl),
      'text/plain; charset=utf-8',
    ),
  );
  const recipes = (request: FastifyRequest) =>
    renderMarkdown(walletRecipes(requestOrigin(ctx, request), ctx.config.baseUrl));
  app.get('/llms-full.txt', doc('API recipes: every endpoint with a runnable curl example'), (request, reply) =>
    sendDocument(request, reply, recipes(request), 'text/markdown; charset=utf-8'),
  );
  app.get('/.well-known/api-catalog', doc('API catalog (RFC 9727 linkset)'), (request, reply) =>
    sendDocument(
      request,
      reply,
      JSON.stringify(walletApiCatalog(requestOrigin(ctx, request))),
      'application/linkset+json',
    ),
  );
  app.get(
    '/.well-known/agent-skills/use-wallet-harness/SKILL.md',
    doc('Agent skill, with this origin substituted'),
    (request, reply) =>
      sendDocument(request, reply, skill(requestOrigin(ctx, request)), 'text/markdown; charset=utf-8'),
  );
  app.get('/robots.txt', doc('Crawler rules'), (request, reply) =>
    sendDocument(request, reply, walletRobotsTxt(), 'text/plain; charset=utf-8'),
  );

  // GET /: the spec's wallet table says markdown asks for the API recipes (the body of /llms-full.txt,
  // byte for byte, no session minted); people get the wallet page of their session.
  app.get(
    '/',
    doc(
      'The wallet page for people (HTML: this session, its keys, credentials and pending requests); with Accept: text/markdown, the API recipes of /llms-full.txt',
    ),
    async (request, reply) => {
      reply.header('vary', 'Accept');
      if (prefersMarkdown(request.headers.accept))
        return sendDocument(request, reply, recipes(request), 'text/markdown; charset=utf-8');
      const session = await requestSession(ctx, request, reply);
      reply.header('cache-control', 'no-store');
      return sendPage(request, reply, walletHomePage(ctx, session), 200, WALLET_CHROME);
    },
  );
};
