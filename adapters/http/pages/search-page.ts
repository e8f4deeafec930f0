import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import type { MainContext } from '../main/context.ts';
import { h, p } from './blocks.ts';
import { sendPage } from './respond.ts';
import type { PageSchema } from './routes.ts';

/** `/search`: the palette's results as a page, for people without JavaScript. */
export function searchPageRoute(app: FastifyInstance, ctx: MainContext, pageSchema: PageSchema): void {
  app.get(
    '/search',
    {
      schema: {
        ...pageSchema('Search results (page; works without JavaScript)'),
        querystring: { type: 'object', properties: { q: { type: 'string', maxLength: 200 } } },
      },
    },
    async (request, reply) => {
      const q = (request.query as { q?: string }).q?.trim() ?? '';
      const found = q && ctx.palette ? ctx.palette.query(q, { limit: 20 }).results : [];
      return sendPage(request, reply, {
        title: q ? `Search: ${q}` : 'Search',
        noindex: true,
        blocks: [
          h(1, 'Search'),
          {
            kind: 'html',
            html: `<form method="get" action="/search" role="search" data-palette><label for="q">Search</label><input id="q" name="q" type="search" value="${escapeHtml(q)}"> <button type="submit">Search</button></form><ul id="palette-results" aria-live="polite"></ul>`,
            markdown: [p('Query: ', { code: q })],
          },
          found.length
            ? { kind: 'list', items: found.map((r) => [{ link: r.name, href: r.href }, ` — ${r.type}: ${r.summary}`]) }
            : p(q ? 'Nothing matched.' : 'Type a word: a protocol, a flow, a concept or a requirement id.'),
        ],
      });
    },
  );
}
