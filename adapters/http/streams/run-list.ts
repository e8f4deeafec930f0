import type { FastifyInstance } from 'fastify';
import { RUN_LIST_STATUSES, type RunSummary } from '../../../projections/run-index.ts';
import { invalidRequest } from '../../../services/errors.ts';
import type { Block } from '../../../services/pages/document.ts';
import type { MainContext } from '../main/context.ts';
import { h, p } from '../pages/blocks.ts';
import { sendPage } from '../pages/respond.ts';

const errorResponse = { $ref: 'OAuthError#' };
const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());

/** A page position: the last run shown (its start's log sequence), as an opaque base64url text. */
const cursorOf = (run: RunSummary) => Buffer.from(`runs:${run.started_sequence}`).toString('base64url');
function positionOf(cursor: string): number {
  const position = /^runs:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))?.[1];
  if (position === undefined) throw invalidRequest('cursor is not one this service gave out');
  return Number(position);
}

const runListing = (run: RunSummary) => ({
  run_id: run.run_id,
  protocol: run.protocol,
  flow: run.flow,
  status: run.status,
  started_at: iso(run.started_at)!,
  ...(run.finished_at !== null
    ? { finished_at: iso(run.finished_at), duration_ms: run.finished_at - run.started_at }
    : {}),
  exchanges: run.exchanges,
  links: {
    run: `/api/runs/${run.run_id}`,
    page: `/runs/${run.run_id}`,
    export: `/api/streams/run:${run.run_id}/export`,
  },
});

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    protocol: { type: 'string', maxLength: 100 },
    flow: { type: 'string', maxLength: 100 },
    status: { type: 'string', enum: [...RUN_LIST_STATUSES] },
    cursor: { type: 'string', maxLength: 400 },
    /** 1 to 100 (default 20). */
    limit: { type: 'string', pattern: '^([1-9][0-9]?|100)$' },
  },
};
type ListQuery = { protocol?: string; flow?: string; status?: RunSummary['status']; cursor?: string; limit?: string };
const DEFAULT_LIMIT = 20;

/** `GET /api/runs` and the `/runs` page: recent runs, newest first, paged with a cursor, filtered. */
export function runListRoutes(app: FastifyInstance, ctx: MainContext): void {
  const page = async (query: ListQuery) => {
    const { runs, more } = await ctx.runIndex.list({
      ...(query.protocol ? { protocol: query.protocol } : {}),
      ...(query.flow ? { flow: query.flow } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(query.cursor ? { before: positionOf(query.cursor) } : {}),
      limit: query.limit ? Number(query.limit) : DEFAULT_LIMIT,
    });
    return { runs: runs.map(runListing), ...(more ? { next_cursor: cursorOf(runs.at(-1)!) } : {}) };
  };

  app.get(
    '/api/runs',
    {
      schema: {
        summary: 'Recent runs, newest first: protocol, flow, status, start, exchanges, duration; paged with a cursor',
        tags: ['catalog'],
        querystring: listQuery,
        response: {
          200: {
            type: 'object',
            required: ['runs'],
            properties: {
              runs: { type: 'array', items: { type: 'object', additionalProperties: true } },
              next_cursor: { type: 'string' },
            },
          },
          400: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return page(request.query as ListQuery);
    },
  );

  app.get(
    '/runs',
    { schema: { summary: 'Recent runs (page)', tags: ['pages'], querystring: listQuery } },
    async (request, reply) => {
      const query = request.query as ListQuery;
      const { runs, next_cursor } = await page(query);
      const blocks: Block[] = [
        h(1, 'Recent runs'),
        p('Every flow run this service kept, newest first. Each opens to its exchanges, tokens and event stream.'),
        runs.length === 0
          ? p('No run yet: start one from a protocol page.')
          : {
              kind: 'table',
              head: ['Run', 'Flow', 'Status', 'Started', 'Exchanges', 'Duration'],
              rows: runs.map((r) => [
                [{ link: r.run_id, href: r.links.page }],
                [`${r.protocol}/${r.flow}`],
                [r.status],
                [{ code: r.started_at }],
                [String(r.exchanges)],
                [r.duration_ms === undefined ? '-' : `${r.duration_ms} ms`],
              ]),
            },
      ];
      if (next_cursor) {
        const next = new URLSearchParams({ limit: query.limit ?? String(DEFAULT_LIMIT), cursor: next_cursor });
        for (const name of ['protocol', 'flow', 'status'] as const) if (query[name]) next.set(name, query[name]!);
        blocks.push(p({ link: 'Older runs', href: `/runs?${next}` }));
      }
      return sendPage(request, reply, { title: 'Recent runs', noindex: true, blocks });
    },
  );
}
