import { buildSync } from 'esbuild';
import type { FastifyInstance } from 'fastify';
import { fileURLToPath } from 'node:url';
import { sendDocument } from '../main/documents.ts';

const ENTRY = fileURLToPath(new URL('../../../web/app.ts', import.meta.url));

/** The browser module, bundled once with esbuild when the server starts (no CDN, no runtime build). */
export function bundleBrowserModule(): string {
  const result = buildSync({ entryPoints: [ENTRY], bundle: true, write: false, format: 'esm', target: 'es2022', minify: true, legalComments: 'none' });
  return result.outputFiles[0].text;
}

export async function assetRoutes(app: FastifyInstance): Promise<void> {
  const js = bundleBrowserModule();
  app.get('/assets/app.js', { schema: { summary: 'The pages\' browser module', tags: ['pages'] } }, (request, reply) => sendDocument(request, reply, js, 'text/javascript; charset=utf-8', 3600));
}
