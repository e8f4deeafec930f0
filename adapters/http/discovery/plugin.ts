import type { FastifyInstance } from 'fastify';
import { enabledExtensions } from '../../config.ts';
import { fileURLToPath } from 'node:url';
import {
  apiCatalog,
  llmsTxt,
  robotsTxt,
  sitemapXml,
  type IndexablePage,
} from '../../../services/discovery/documents.ts';
import { renderSkills, skillsIndex } from '../../../services/discovery/skills.ts';
import { notFound } from '../../../services/errors.ts';
import type { MainContext } from '../main/context.ts';
import { sendDocument } from '../main/documents.ts';
import { apiReferenceHtml, apiReferenceMarkdown } from './api-reference.ts';
import { prefersMarkdown } from '../pages/negotiate.ts';
import { nodeFiles } from '../../files/node-files.ts';

const CONTENT_DIR = fileURLToPath(new URL('../../../content', import.meta.url));

/** Discovery documents of the main origin (spec section 4, decisions section 5). */
export async function discoveryRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const wallet = ctx.config.walletUrl;
  const doc = (summary: string) => ({ schema: { summary, tags: ['discovery'] } });

  const catalogJson = JSON.stringify(apiCatalog(base));
  app.get('/.well-known/api-catalog', doc('API catalog (RFC 9727 linkset)'), (request, reply) =>
    sendDocument(request, reply, catalogJson, 'application/linkset+json'),
  );

  const skills = renderSkills(
    nodeFiles,
    CONTENT_DIR,
    {
      base_url: base,
      wallet_url: wallet,
      claim_grant_type: ctx.agentAuth.settings.claimGrantType,
    },
    enabledExtensions(ctx.config),
  );
  const index = JSON.stringify(skillsIndex(skills, base));
  app.get(
    '/.well-known/agent-skills/index.json',
    doc('Agent skills index (Agent Skills Discovery v0.2.0)'),
    (request, reply) => sendDocument(request, reply, index, 'application/json'),
  );
  app.get(
    '/.well-known/agent-skills/:name/SKILL.md',
    {
      schema: {
        summary: 'One agent skill artifact',
        tags: ['discovery'],
        params: { type: 'object', properties: { name: { type: 'string', maxLength: 100 } } },
      },
    },
    (request, reply) => {
      const skill = skills.find((s) => s.name === (request.params as { name: string }).name);
      if (!skill) throw notFound('No such skill');
      return sendDocument(request, reply, skill.markdown, 'text/markdown; charset=utf-8');
    },
  );

  const robots = robotsTxt(base);
  app.get('/robots.txt', doc('Crawler rules with Content-Signal'), (request, reply) =>
    sendDocument(request, reply, robots, 'text/plain; charset=utf-8'),
  );

  const protocolPages = (): IndexablePage[] => [
    { path: '/', title: 'Protocol catalog' },
    ...ctx.catalog
      .protocols()
      .flatMap((p) => [
        { path: `/protocol/${p.id}`, title: p.name },
        ...ctx.catalog
          .flows(p.id)
          .map((f) => ({ path: `/protocol/${p.id}/flow/${f.id}`, title: `${p.name}: ${f.name}` })),
      ]),
  ];
  const conformancePages = () => ctx.conformance.indexablePages();
  app.get('/sitemap.xml', doc('Sitemap (conformance pages only when indexable)'), (request, reply) =>
    sendDocument(
      request,
      reply,
      sitemapXml(base, [...protocolPages(), ...conformancePages()]),
      'application/xml; charset=utf-8',
    ),
  );
  app.get('/llms.txt', doc('llms.txt: where an agent starts'), (request, reply) =>
    sendDocument(
      request,
      reply,
      llmsTxt(base, wallet, protocolPages(), conformancePages(), ctx.config.extensions),
      'text/plain; charset=utf-8',
    ),
  );

  // The contract is generated from the route schemas that validate requests (@fastify/swagger).
  let openapi: string | undefined;
  const spec = () => (openapi ??= JSON.stringify(app.swagger()));
  app.get('/openapi.json', doc('OpenAPI 3.1 contract of the gateway'), (request, reply) =>
    sendDocument(request, reply, spec(), 'application/openapi+json'),
  );
  app.get(
    '/docs/api',
    doc('Rendered API reference (HTML, no CDN; markdown with Accept: text/markdown)'),
    (request, reply) => {
      reply.header('vary', 'Accept');
      if (prefersMarkdown(request.headers.accept))
        return sendDocument(request, reply, apiReferenceMarkdown(JSON.parse(spec())), 'text/markdown; charset=utf-8');
      return sendDocument(request, reply, apiReferenceHtml(JSON.parse(spec())), 'text/html; charset=utf-8');
    },
  );
}
