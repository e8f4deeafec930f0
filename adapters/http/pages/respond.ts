import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PageDocument } from '../../../services/pages/document.ts';
import { escapeHtml, renderHtmlBody } from '../../../services/pages/render-html.ts';
import { renderMarkdown } from '../../../services/pages/render-markdown.ts';
import { STYLE } from './style.ts';
import { prefersMarkdown } from './negotiate.ts';

export function htmlPage(doc: PageDocument): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(doc.title)} · Portico</title>
${doc.description ? `<meta name="description" content="${escapeHtml(doc.description)}">\n` : ''}${doc.noindex ? '<meta name="robots" content="noindex">\n' : ''}<link rel="alternate" type="text/plain" href="/llms.txt">
<style>${STYLE}</style></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><nav aria-label="Site"><a href="/">Portico</a> <a href="/looking-glass">Looking glass</a> <a href="/docs/api">API</a> <a href="/auth.md">Agent auth</a></nav>
<span class="notice">sandbox: every token here is public demo data</span></header>
<main id="main">${renderHtmlBody(doc)}</main>
<script type="module" src="/assets/app.js"></script>
<footer>Portico runs real identity protocols on demo data. Nothing here guards anything real. Ask for <code>text/markdown</code> to get this page as markdown.</footer>
</body></html>`;
}

/** Sends a page as HTML or as its markdown twin, by the request's Accept header. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, doc: PageDocument, status = 200): FastifyReply {
  reply.code(status).header('vary', 'Accept');
  if (doc.noindex) reply.header('x-robots-tag', 'noindex');
  if (prefersMarkdown(request.headers.accept)) return reply.type('text/markdown; charset=utf-8').send(renderMarkdown(doc));
  return reply.type('text/html; charset=utf-8').send(htmlPage(doc));
}
