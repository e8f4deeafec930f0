import type { PageDocument } from '../../../services/pages/document.ts';

import { h, p } from './blocks.ts';

export function notFoundPage(path: string): PageDocument {
  return {
    title: 'Not found',
    noindex: true,
    blocks: [
      h(1, 'Not found'),
      p('Nothing lives at ', { code: path }, '.'),
      p({ link: 'Back to the protocol catalog', href: '/' }),
    ],
  };
}

const ERROR_TITLES: Record<number, string> = {
  400: 'Bad request',
  404: 'Not found',
  413: 'Request too large',
  414: 'Address too long',
  429: 'Too many requests',
  503: 'Unavailable',
};

/** The page an error shows on a page path: what happened and, for a rate limit, when to retry. */
export function errorPage(error: { error: string; description: string; status: number }): PageDocument {
  const title = ERROR_TITLES[error.status] ?? (error.status >= 500 ? 'Something went wrong' : 'Request refused');
  return {
    title,
    noindex: true,
    blocks: [
      h(1, title),
      { kind: 'notice', tone: 'error', inlines: [error.description] },
      p('Error ', { code: error.error }, `, HTTP ${error.status}. `, {
        link: 'Back to the protocol catalog',
        href: '/',
      }),
    ],
  };
}

/** Server-rendered pages with markdown twins: home, protocols, flows, the looking glass, runs. */
