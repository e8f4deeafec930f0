import type { FastifyInstance } from 'fastify';
import type { Block, Inline } from '../../../services/pages/document.ts';
import { contentPlaceholders, markdownBlocks, markdownInlines } from '../../../services/pages/markdown-content.ts';
import { HOW_TO_EVALUATE, NOT_EVALUATED, type RequirementView } from '../../../services/conformance/service.ts';
import { notFound } from '../../../services/errors.ts';
import type { MainContext } from '../main/context.ts';
import { jsonObject } from '../response-schemas.ts';
import { sendPage } from '../pages/respond.ts';
import { notFoundPage } from '../pages/error-pages.ts';

const specParams = {
  type: 'object',
  properties: {
    spec: { type: 'string', maxLength: 100 },
    id: { type: 'string', maxLength: 100 },
    requirement: { type: 'string', maxLength: 100 },
  },
};
const errorResponse = { $ref: 'OAuthError#' };

/** `/api/conformance/*` and the `/spec/...` pages (spec sections 2-4, decisions section 6). */
export async function conformanceRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const c = ctx.conformance;
  const placeholders = contentPlaceholders(ctx.config);
  app.get(
    '/api/conformance/specs',
    {
      schema: {
        summary: 'Conformance registry: specifications',
        tags: ['conformance'],
        response: {
          200: {
            type: 'object',
            properties: {
              specs: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: true,
                  properties: {
                    id: { type: 'string' },
                    requirement_count: { type: 'integer' },
                    indexable: { type: 'boolean' },
                  },
                },
              },
            },
          },
        },
      },
    },
    async () => ({ specs: c.specs() }),
  );
  app.get(
    '/api/conformance/specs/:spec',
    {
      schema: {
        summary: 'One specification and its requirements',
        tags: ['conformance'],
        params: specParams,
        response: {
          200: jsonObject('The specification with each requirement and its verdict', {
            id: { type: 'string' },
            requirements: { type: 'array', items: { type: 'object', additionalProperties: true } },
          }),
          404: errorResponse,
        },
      },
    },
    async (request) => {
      const s = c.spec((request.params as { spec: string }).spec);
      if (!s) throw notFound('No such specification in the registry');
      return s;
    },
  );
  app.get(
    '/api/conformance/specs/:spec/requirements/:id',
    {
      schema: {
        summary: 'One requirement with its self-test verdict',
        tags: ['conformance'],
        params: specParams,
        response: {
          200: jsonObject('The requirement: statement, level, verdict of this build, its tests and implementation', {
            id: { type: 'string' },
            verdict: { type: 'string' },
          }),
          404: errorResponse,
        },
      },
    },
    async (request) => {
      const { spec, id } = request.params as { spec: string; id: string };
      const r = c.requirement(id);
      if (!r || r.spec !== spec) throw notFound('No such requirement in the registry');
      return r;
    },
  );

  const verdictBlock = (r: RequirementView): Block => ({
    kind: 'notice',
    tone: r.verdict === 'PASS' ? 'ok' : r.verdict === 'FAIL' ? 'error' : 'info',
    inlines:
      r.verdict === NOT_EVALUATED
        ? [`${NOT_EVALUATED}. `, ...markdownInlines(r.verdict_note)]
        : [`Self-test verdict: ${r.verdict}. `, r.verdict_note],
  });

  app.get(
    '/spec',
    { schema: { summary: 'Conformance: the specifications and their requirements (page)', tags: ['pages'] } },
    async (request, reply) => {
      const specs = c.specs();
      const evaluated = specs.some((s) => Object.keys(s.verdicts).some((v) => v !== NOT_EVALUATED));
      return sendPage(request, reply, {
        title: 'Conformance',
        description: 'The normative requirements this build implements, each with the tests that check it.',
        blocks: [
          { kind: 'heading', level: 1, text: 'Conformance' },
          {
            kind: 'paragraph',
            inlines: [
              'The normative requirements this build implements, each with the tests that check it. Verdicts are self-tests of this build, not certifications.',
            ],
          },
          ...(evaluated
            ? []
            : [
                {
                  kind: 'notice',
                  tone: 'info',
                  inlines: [`${NOT_EVALUATED}. `, ...markdownInlines(HOW_TO_EVALUATE)],
                } as Block,
              ]),
          {
            kind: 'table',
            head: ['Specification', 'Requirements', 'Verdicts'],
            rows: specs.map((s) => [
              [{ link: s.title, href: `/spec/${s.id}` }],
              [String(s.requirement_count)],
              [
                Object.entries(s.verdicts)
                  .map(([v, n]) => `${v}: ${n}`)
                  .join(', '),
              ],
            ]),
          },
        ],
      });
    },
  );

  app.get(
    '/spec/:spec',
    { schema: { summary: 'Requirements of one specification (page)', tags: ['pages'], params: specParams } },
    async (request, reply) => {
      const s = c.spec((request.params as { spec: string }).spec);
      if (!s) return sendPage(request, reply, notFoundPage(request.url), 404);
      return sendPage(request, reply, {
        title: s.title,
        noindex: !s.indexable,
        blocks: [
          { kind: 'heading', level: 1, text: s.title },
          {
            kind: 'paragraph',
            inlines: [
              { link: s.version, href: s.url },
              ` — ${s.requirement_count} requirements implemented by this build. Verdicts are self-tests, not certifications.`,
            ],
          },
          {
            kind: 'table',
            head: ['Requirement', 'Level', 'Statement', 'Verdict'],
            rows: s.requirements.map((r) => [
              [{ link: r.id, href: `/spec/${s.id}/${r.id}` }],
              [r.level],
              markdownInlines(r.statement, placeholders),
              [r.verdict],
            ]),
          },
        ],
      });
    },
  );

  app.get(
    '/spec/:spec/:requirement',
    { schema: { summary: 'One normative requirement (page)', tags: ['pages'], params: specParams } },
    async (request, reply) => {
      const { spec, requirement } = request.params as { spec: string; requirement: string };
      const r = c.requirement(requirement);
      if (!r || r.spec !== spec) return sendPage(request, reply, notFoundPage(request.url), 404);
      const link = (text: string, url?: string): Inline => (url ? { link: text, href: url } : { code: text });
      return sendPage(request, reply, {
        title: `${r.id}`,
        description: r.statement,
        noindex: !r.indexable,
        blocks: [
          { kind: 'heading', level: 1, text: r.id },
          { kind: 'paragraph', inlines: [{ strong: r.level }, ' ', ...markdownInlines(r.statement, placeholders)] },
          {
            kind: 'paragraph',
            inlines: [
              'Section ',
              { link: r.section, href: r.section_url },
              ' of ',
              { link: spec, href: `/spec/${spec}` },
              `. Roles: ${r.roles.join(', ')}.`,
            ],
          },
          { kind: 'heading', level: 2, text: 'Verdict' },
          verdictBlock(r),
          { kind: 'heading', level: 2, text: 'Tests' },
          { kind: 'list', items: r.test_results.map((t) => [link(t.name, t.url), ` (${t.file}) — ${t.verdict}`]) },
          { kind: 'heading', level: 2, text: 'Implementation' },
          { kind: 'list', items: r.implementation_links.map((i) => [link(i.path, i.url)]) },
          ...(r.explainer
            ? [{ kind: 'heading', level: 2, text: 'Explainer' } as Block, ...markdownBlocks(r.explainer, placeholders)]
            : []),
        ],
      });
    },
  );
}
