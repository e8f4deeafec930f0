import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PageDocument } from '../../../services/pages/document.ts';
import { escapeHtml, renderHtmlBody } from '../../../services/pages/render-html.ts';
import { renderMarkdown } from '../../../services/pages/render-markdown.ts';
import { STYLE } from './style.ts';
import { prefersMarkdown } from './negotiate.ts';

/** What surrounds a page's content: the site it belongs to. */
export interface PageChrome {
  /** Navigation links, as label and (relative or absolute) href. */
  nav: Array<[label: string, href: string]>;
  /** The browser module that adds interactivity, if the site serves one. */
  script?: string;
}

const MAIN_CHROME: PageChrome = {
  nav: [
    ['Portico', '/'],
    ['Looking glass', '/looking-glass'],
    ['Conformance', '/spec'],
    ['API', '/docs/api'],
    ['Agent auth', '/auth.md'],
  ],
  script: '/assets/app.js',
};

export function htmlPage(doc: PageDocument, chrome: PageChrome = MAIN_CHROME): string {
  const nav = chrome.nav.map(([label, href]) => `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`).join(' ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(doc.title)} · Portico</title>
${doc.description ? `<meta name="description" content="${escapeHtml(doc.description)}">\n` : ''}${doc.noindex ? '<meta name="robots" content="noindex">\n' : ''}<link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="alternate" type="text/plain" href="/llms.txt">
<style>${STYLE}</style></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><nav aria-label="Site">${nav}</nav>
<span class="notice">sandbox: every token here is public demo data</span></header>
<main id="main">${renderHtmlBody(doc)}</main>
${chrome.script ? `<script type="module" src="${escapeHtml(chrome.script)}"></script>\n` : ''}<footer>Portico runs real identity protocols on demo data. Nothing here guards anything real. Ask for <code>text/markdown</code> to get this page as markdown.</footer>
</body></html>`;
}

/** Sends a page as HTML or as its markdown twin, by the request's Accept header. */
export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  doc: PageDocument,
  status = 200,
  chrome: PageChrome = MAIN_CHROME,
): FastifyReply {
  reply.code(status).header('vary', 'Accept');
  if (doc.noindex) reply.header('x-robots-tag', 'noindex');
  if (prefersMarkdown(request.headers.accept))
    return reply.type('text/markdown; charset=utf-8').send(renderMarkdown(doc));
  return reply.type('text/html; charset=utf-8').send(htmlPage(doc, chrome));
}
