import type { FastifyInstance } from 'fastify';
import { oauthError } from '../../../services/errors.ts';
import type { MainContext } from '../main/context.ts';

/** `POST /api/palette/query` (the index is opened by the composition root, `adapters/palette/open.ts`). */
export async function paletteRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { palette } = ctx;
  app.post(
    '/api/palette/query',
    {
      config: { fixHint: 'Send {"q": "<words>"} (optional "scope" and "limit"): the query field is q.' },
      schema: {
        summary: 'Search protocols, flows, concepts, skills and requirements',
        tags: ['palette'],
        body: {
          type: 'object',
          required: ['q'],
          additionalProperties: false,
          properties: {
            q: { type: 'string', maxLength: 200 },
            scope: { type: 'string', enum: ['protocol', 'flow', 'concept', 'skill', 'spec', 'requirement'] },
            limit: { type: 'integer', minimum: 1, maximum: 50 },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              query: { type: 'string' },
              results: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    type: { type: 'string' },
                    name: { type: 'string' },
                    summary: { type: 'string' },
                    protocol: { type: ['string', 'null'] },
                    href: { type: 'string' },
                    runnable: { type: 'boolean' },
                    score: { type: 'number' },
                    snippet: { type: 'string' },
                  },
                },
              },
              total_candidates: { type: 'integer' },
              elapsed_micros: { type: 'integer' },
            },
          },
          503: { $ref: 'OAuthError#' },
        },
      },
    },
    async (request) => {
      if (!palette) throw oauthError('temporarily_unavailable', 'The palette index is not loaded');
      const { q, scope, limit } = request.body as { q: string; scope?: string; limit?: number };
      const started = process.hrtime.bigint();
      const { results, total_candidates } = palette.query(q, { scope, limit });
      return {
        query: q,
        results,
        total_candidates,
        elapsed_micros: Number((process.hrtime.bigint() - started) / 1000n),
      };
    },
  );
}
