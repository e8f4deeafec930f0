import type { PageDocument } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { hiddenInputs } from './pages.ts';

/**
 * An authorization error for a client that registered itself (RFC 9700 §4.11.2): the error is shown
 * here, with the way back to the client for the person to follow (a link, or a button for form_post),
 * so nobody can use this server to bounce a browser to a URI of their choosing.
 */
export function confirmErrorRedirectPage(outcome: {
  redirectUri: string;
  responseMode: 'query' | 'form_post';
  params: Record<string, string>;
}): PageDocument {
  const target = new URL(outcome.redirectUri);
  const back =
    outcome.responseMode === 'form_post'
      ? `<form method="post" action="${escapeHtml(outcome.redirectUri)}">${hiddenInputs(outcome.params)}<button type="submit">Return to ${escapeHtml(target.origin)}</button></form>`
      : (() => {
          for (const [k, v] of Object.entries(outcome.params)) target.searchParams.set(k, v);
          return `<p><a href="${escapeHtml(target.href)}" rel="noreferrer">Return to ${escapeHtml(target.origin)}</a></p>`;
        })();
  return {
    title: 'This request cannot continue',
    blocks: [
      { kind: 'heading', level: 1, text: 'This request cannot continue' },
      {
        kind: 'notice',
        tone: 'error',
        inlines: [{ code: outcome.params.error ?? 'error' }, `: ${outcome.params.error_description ?? ''}`],
      },
      {
        kind: 'paragraph',
        inlines: [
          'This client registered itself, so you are not sent back to it automatically (RFC 9700 §4.11.2). Go back only if you trust ',
          { code: target.origin },
          '.',
        ],
      },
      { kind: 'html', html: back, markdown: [{ kind: 'paragraph', inlines: [{ code: target.href }] }] },
    ],
  };
}
