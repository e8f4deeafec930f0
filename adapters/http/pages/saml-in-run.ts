import type { RecordedExchange } from '../../../machines/flow-run.ts';
import type { Block } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';

const title = (m: NonNullable<RecordedExchange['saml']>[number]) =>
  `${m.field} (${m.binding}, ${m.where}; decoded, signature values removed)`;

/** The SAML messages an exchange carried, decoded, for a run's timeline (HTML). */
export const samlMessagesHtml = (x: RecordedExchange): string =>
  (x.saml ?? [])
    .map(
      (m) =>
        `<section class="token"><h4>${escapeHtml(title(m))}</h4><pre tabindex="0"><code class="language-xml">${escapeHtml(m.xml)}</code></pre></section>`,
    )
    .join('');

/** The same, as markdown blocks. */
export const samlMessagesMarkdown = (x: RecordedExchange): Block[] =>
  (x.saml ?? []).map((m) => ({ kind: 'code', lang: 'xml', text: `<!-- ${title(m)} -->\n${m.xml}` }));
