import { buildSync } from 'esbuild';
import type { FastifyInstance } from 'fastify';
import { fileURLToPath } from 'node:url';
import { sendDocument } from '../main/documents.ts';

const ENTRY = fileURLToPath(new URL('../../../web/app.ts', import.meta.url));

/** The browser module, bundled once with esbuild when the server starts (no CDN, no runtime build). */
function bundleBrowserModule(): string {
  const result = buildSync({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
  });
  return result.outputFiles[0].text;
}

export async function assetRoutes(app: FastifyInstance): Promise<void> {
  await faviconRoutes(app);
  const js = bundleBrowserModule();
  app.get('/assets/app.js', { schema: { summary: "The pages' browser module", tags: ['pages'] } }, (request, reply) =>
    sendDocument(request, reply, js, 'text/javascript; charset=utf-8', 3600),
  );
}

/** The site icon: an SVG (light and dark), linked from every page and also answered at /favicon.ico. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><style>rect{fill:#0b57d0}path{stroke:#fdfdfc}@media (prefers-color-scheme:dark){rect{fill:#8ab4f8}path{stroke:#14171a}}</style><rect width="32" height="32" rx="7"/><path d="M11 25V7h6.5a5.5 5.5 0 0 1 0 11H11" fill="none" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

export async function faviconRoutes(app: FastifyInstance): Promise<void> {
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    app.get(path, { schema: { summary: 'Site icon (SVG)', tags: ['pages'] } }, (request, reply) =>
      sendDocument(request, reply, FAVICON, 'image/svg+xml', 86_400),
    );
  }
}
