import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../../services/errors.ts';
import { pickRunOptions, runOptionsOf } from '../../../services/flows/run-options.ts';
import type { Block, Inline } from '../../../services/pages/document.ts';
import { contentPlaceholders, markdownBlocks, markdownInlines } from '../../../services/pages/markdown-content.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import type { MainContext } from '../main/context.ts';
import { sendPage } from './respond.ts';
import { runPage } from './run-timeline.ts';
import { stepFormRoutes } from './step-controls.ts';
import { runTokenCookie, runTokensOf } from '../run-tokens.ts';
import { runCallbackRoute } from './run-callback.ts';
import { runNotShownPage, runUnlockRoute } from './run-unlock.ts';
import { ownServerBlocks } from './own-server-blocks.ts';
import { sequenceDiagramSvg } from './sequence-diagram.ts';

import { h, p } from './blocks.ts';
import { lookingGlassRoutes } from './looking-glass.ts';
import { searchPageRoute } from './search-page.ts';
import { runOptionControls, runOptionList } from './run-option-blocks.ts';
export type PageSchema = (
  summary: string,
  params?: Record<string, unknown>,
) => { summary: string; tags: string[]; params?: Record<string, unknown> };

import { notFoundPage } from './error-pages.ts';
import type { RunSummary } from '../../../projections/run-index.ts';

/** The home page's latest runs, each linked, then the full list. */
const recentRuns = (runs: RunSummary[]): Block[] => [
  runs.length === 0
    ? p('No run yet: open a protocol and start a flow.')
    : {
        kind: 'list',
        items: runs.map((r) => [
          { link: `${r.protocol}/${r.flow}`, href: `/runs/${r.run_id}` },
          ` ${r.status}, ${r.exchanges} exchanges, started `,
          { code: new Date(r.started_at).toISOString() },
        ]),
      },
  p({ link: 'All runs', href: '/runs' }),
];

export async function pageRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { catalog, flowRuns } = ctx;
  const placeholders = contentPlaceholders(ctx.config);
  const pageSchema: PageSchema = (summary, params) => ({
    summary,
    tags: ['pages'],
    ...(params ? { params } : {}),
  });

  app.get(
    '/',
    { schema: pageSchema('Home page (HTML, or markdown with Accept: text/markdown)') },
    async (request, reply) =>
      sendPage(request, reply, {
        title: 'Identity protocols you can run',
        description:
          'A live sandbox for OAuth 2.0, OpenID Connect, agent registration and more: run real flows, inspect every token.',
        blocks: [
          h(1, 'Identity protocols you can run'),
          p(
            'Portico runs real authentication and identity protocols on demo data. Start a flow, watch every HTTP exchange, and decode every token. Demo clients and users are published, so every token minted here is public and valid nowhere else.',
          ),
          {
            kind: 'notice',
            tone: 'info',
            inlines: [
              'Agents: start with ',
              { link: '/llms.txt', href: '/llms.txt' },
              ', ',
              { link: 'the agent auth guide', href: '/auth.md' },
              ' and ',
              { link: 'the agent skills', href: '/.well-known/agent-skills/index.json' },
              '.',
            ],
          },
          {
            kind: 'html',
            html: '<form method="get" action="/search" role="search" data-palette><label for="q">Search protocols, flows and concepts</label><input id="q" name="q" type="search" autocomplete="off" placeholder="pkce, device code, mdl…"> <button type="submit">Search</button></form><ul id="palette-results" aria-live="polite"></ul>',
            markdown: [p('Search: ', { code: 'POST /api/palette/query {"q": "..."}' })],
          },
          h(2, 'Protocols'),
          {
            kind: 'table',
            head: ['Protocol', 'What it does', 'Flows'],
            rows: catalog
              .protocols()
              .map((pr) => [
                [{ link: pr.name, href: `/protocol/${pr.id}` }],
                [pr.description],
                [String(catalog.flows(pr.id).length)],
              ]),
          },
          h(2, 'Tools'),
          {
            kind: 'list',
            items: [
              [{ link: 'Looking glass', href: '/looking-glass' }, ': decode and explain a JWT or credential'],
              [
                { link: 'API reference', href: '/docs/api' },
                ' and ',
                { link: 'OpenAPI contract', href: '/openapi.json' },
              ],
              [{ link: 'MCP server card', href: '/mcp/server-card' }, ': read-only tools at ', { code: '/mcp' }],
            ],
          },
          h(2, 'Recent runs'),
          ...recentRuns((await ctx.runIndex.list({ limit: 5 })).runs),
        ],
      }),
  );

  app.get(
    '/protocol/:id',
    {
      schema: pageSchema('A protocol and its flows (page)', {
        type: 'object',
        properties: { id: { type: 'string', maxLength: 100 } },
      }),
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const pr = catalog.protocol(id);
      if (!pr) return sendPage(request, reply, notFoundPage(request.url), 404);
      return sendPage(request, reply, {
        title: pr.name,
        description: pr.description,
        blocks: [
          h(1, pr.name),
          { kind: 'paragraph', inlines: markdownInlines(pr.description, placeholders) },
          p('Version: ', { code: pr.version }),
          ...(pr.body ? markdownBlocks(pr.body, placeholders) : []),
          h(2, 'Flows'),
          {
            kind: 'table',
            head: ['Flow', 'Category', 'Runnable'],
            rows: catalog
              .flows(pr.id)
              .map((f) => [
                [{ link: f.name, href: `/protocol/${pr.id}/flow/${f.id}` }],
                [f.category],
                [flowRuns.executable(pr.id, f.id) ? 'yes' : 'not in this build'],
              ]),
          },
          h(2, 'Specifications'),
          { kind: 'list', items: pr.specs.map((s) => [{ link: s.title, href: s.url }]) },
        ],
      });
    },
  );

  app.get(
    '/protocol/:id/flow/:flow',
    {
      schema: pageSchema('A flow: steps, sequence diagram, run instructions (page)', {
        type: 'object',
        properties: { id: { type: 'string', maxLength: 100 }, flow: { type: 'string', maxLength: 100 } },
      }),
    },
    async (request, reply) => {
      const { id, flow } = request.params as { id: string; flow: string };
      const f = catalog.flow(id, flow);
      if (!f) return sendPage(request, reply, notFoundPage(request.url), 404);
      const runnable = flowRuns.executable(id, flow);
      const stepList: Block = {
        kind: 'list',
        ordered: true,
        items: f.steps.map((s) => [
          { strong: s.name },
          ` (${s.from} → ${s.to}): `,
          ...markdownInlines(s.description, placeholders),
          ...(s.spec_ref ? ([' — ', { em: s.spec_ref }] as Inline[]) : []),
        ]),
      };
      return sendPage(request, reply, {
        title: f.name,
        description: f.description,
        blocks: [
          h(1, f.name),
          { kind: 'paragraph', inlines: markdownInlines(f.description, placeholders) },
          p('Protocol: ', { link: catalog.protocol(id)!.name, href: `/protocol/${id}` }),
          h(2, 'Sequence'),
          // The diagram draws the steps listed under Steps: its markdown twin points there instead of repeating them.
          {
            kind: 'figure',
            html: sequenceDiagramSvg(f.steps, f.name),
            caption: `${f.steps.length} steps`,
            markdown: [p(`A sequence diagram of the ${f.steps.length} steps listed under Steps.`)],
          },
          h(2, 'Steps'),
          stepList,
          ...(f.body ? markdownBlocks(f.body, placeholders) : []),
          h(2, 'Run it'),
          runnable
            ? {
                kind: 'html',
                html: `<form method="post" action="/protocol/${escapeHtml(id)}/flow/${escapeHtml(flow)}/run" data-run-flow="/api/protocols/${escapeHtml(id)}/demo/${escapeHtml(flow)}">${runOptionControls(runOptionsOf(id, flow))}<p><label><input type="checkbox" name="mode" value="step"> Step through it: pause before every request</label></p><button type="submit">Run this flow</button></form><p>Or over the API: <code>POST /api/protocols/${escapeHtml(id)}/demo/${escapeHtml(flow)}</code></p><section id="run-output" aria-live="polite"></section>`,
                markdown: [
                  p(
                    'Run it over the API: ',
                    { code: `POST /api/protocols/${id}/demo/${flow}` },
                    runOptionsOf(id, flow).length ? ' with a JSON body of these options:' : '',
                  ),
                  ...runOptionList(runOptionsOf(id, flow)),
                ],
              }
            : p('This flow is described but cannot be run in this build.'),
          ...(flowRuns.targetable(id, flow) ? ownServerBlocks(id, flow, ctx.config.baseUrl) : []),
        ],
      });
    },
  );

  // Without JavaScript the Run button posts here and lands on the run's page.
  app.post(
    '/protocol/:id/flow/:flow/run',
    {
      schema: {
        ...pageSchema('Run a flow from its page with the chosen options (form post, redirects to the run)', {
          type: 'object',
          properties: { id: { type: 'string', maxLength: 100 }, flow: { type: 'string', maxLength: 100 } },
        }),
        body: { type: 'object', nullable: true, additionalProperties: { type: 'string', maxLength: 300 } },
        response: { 303: { description: "See Other: the run's page, /runs/{run_id} (Location)", type: 'null' } },
      },
    },
    async (request, reply) => {
      const { id, flow } = request.params as { id: string; flow: string };
      try {
        const body = request.body as Record<string, unknown> | undefined;
        const stepped = body?.mode === 'step';
        const launched = await flowRuns.launch(
          id,
          flow,
          { ...pickRunOptions(id, flow, body), ...(stepped ? { mode: 'step' } : {}) },
          request.ip,
        );
        const run = await flowRuns.answer(launched);
        // Step mode and targeted runs: the run's pages and forms prove its token with a cookie for that run.
        if (run.run_token) reply.header('set-cookie', runTokenCookie(run.run_id, run.run_token));
        return reply.redirect(`/runs/${run.run_id}`, 303);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        return sendPage(
          request,
          reply,
          {
            title: 'Cannot run',
            noindex: true,
            blocks: [h(1, 'This flow cannot run'), { kind: 'notice', tone: 'error', inlines: [error.description] }],
          },
          error.status,
        );
      }
    },
  );

  stepFormRoutes(app, flowRuns, pageSchema);
  runCallbackRoute(app, flowRuns, pageSchema);
  runUnlockRoute(app, flowRuns, pageSchema);

  app.get(
    '/runs/:id',
    {
      schema: pageSchema('A run: every exchange and decoded token (page)', {
        type: 'object',
        properties: { id: { type: 'string', maxLength: 100 } },
      }),
    },
    async (request, reply) => {
      const id = (request.params as { id: string }).id;
      const view = await flowRuns.viewFor(id, runTokensOf(request.headers, id));
      if (!view) return sendPage(request, reply, runNotShownPage(request.url, id), 404);
      return sendPage(request, reply, runPage(view));
    },
  );

  searchPageRoute(app, ctx, pageSchema);
  lookingGlassRoutes(app, ctx, pageSchema);
}
