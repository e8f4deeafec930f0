import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { qrPng, qrSvg } from '../../services/pages/qr.ts';
import { h } from './pages/blocks.ts';
import { sendPage, type PageChrome } from './pages/respond.ts';

/**
 * A request's or an offer's own URL answers a wallet with its document; a person's browser or a
 * caller asking `image/png` gets the handoff link as a QR code instead. A missing or `*\/*` Accept is
 * the wallet's: its media type comes first, so only an explicit preference changes the answer.
 */
export function handoffWanted(request: FastifyRequest, documentType: string): 'document' | 'png' | 'html' {
  const chosen = new Negotiator({ headers: { accept: request.headers.accept ?? '*/*' } }).mediaType([
    documentType,
    'image/png',
    'text/html',
    'text/markdown',
  ]);
  if (chosen === 'image/png') return 'png';
  if (chosen === 'text/html' || chosen === 'text/markdown') return 'html';
  return 'document';
}

/** The QR code of a handoff link: PNG bytes, or a page with the SVG, the link and what it is for (markdown twin). */
export async function sendHandoff(
  request: FastifyRequest,
  reply: FastifyReply,
  wanted: 'png' | 'html',
  link: string,
  what: { title: string; explanation: string },
  chrome?: PageChrome,
): Promise<FastifyReply> {
  reply.header('cache-control', 'no-store').header('vary', 'Accept');
  if (wanted === 'png') return reply.type('image/png').send(await qrPng(link));
  const svg = await qrSvg(link, `QR code of ${what.title.toLowerCase()}`);
  return sendPage(
    request,
    reply,
    {
      title: what.title,
      noindex: true,
      blocks: [
        h(1, what.title),
        { kind: 'paragraph', inlines: [what.explanation] },
        {
          kind: 'figure',
          html: svg,
          caption: 'Scan it with a wallet on a phone; the same link, as PNG, with Accept: image/png.',
          markdown: [
            {
              kind: 'paragraph',
              inlines: ['A QR code of the link below (PNG with ', { code: 'Accept: image/png' }, ').'],
            },
          ],
        },
        { kind: 'code', text: link },
      ],
    },
    200,
    chrome,
  );
}
