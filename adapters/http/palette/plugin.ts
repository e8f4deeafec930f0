import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { oauthError } from '../../../services/errors.ts';
import { buildPaletteIndex, indexVersion } from '../../palette/build-index.ts';
import { Palette } from '../../palette/sqlite-palette.ts';
import { paletteArtefacts } from '../../../services/palette/source.ts';
import type { MainContext } from '../main/context.ts';
import { nodeFiles } from '../../files/node-files.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Opens the palette index. In production a missing SHOWCASE_PALETTE_DB (or an unreadable file) stops
 * the start; elsewhere an index that is missing or stale is built from the content first.
 */
export function openPalette(ctx: MainContext): Palette | undefined {
  const { palette: settings } = ctx.config;
  const file = settings.file || join(ctx.config.dataDir, 'palette.db');
  if (settings.production) {
    if (!settings.file)
      throw new Error(
        'SHOWCASE_ENV=production needs SHOWCASE_PALETTE_DB (the prebuilt palette index; build it with npm run build:palette)',
      );
    try {
      return new Palette(file);
    } catch (error) {
      throw new Error(`SHOWCASE_ENV=production: cannot open the palette index ${file}: ${(error as Error).message}`);
    }
  }
  const artefacts = paletteArtefacts(nodeFiles, ROOT, (p, f) => ctx.flowRuns.executable(p, f));
  let palette: Palette | undefined;
  if (existsSync(file)) {
    try {
      palette = new Palette(file);
    } catch {
      palette = undefined;
    }
  }
  if (!palette || palette.version !== indexVersion(artefacts)) {
    palette?.close();
    buildPaletteIndex(artefacts, file);
    palette = new Palette(file);
  }
  return palette;
}

/** `POST /api/palette/query`, and the palette members of /health and /api. */
export async function paletteRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const palette = openPalette(ctx);
  ctx.palette = palette;
  ctx.health.palette = () => ({
    loaded: palette !== undefined,
    artefacts: palette?.artefacts ?? 0,
    index_version: palette?.version ?? null,
  });
  if (palette) {
    ctx.apiEndpoints.palette = '/api/palette/query';
    ctx.onClose.push(() => palette.close());
  }
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
