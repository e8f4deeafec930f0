import { type RunOption } from '../../../services/flows/run-options.ts';
import type { Block, Inline } from '../../../services/pages/document.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';

/** The flow's options as documented form controls (each a select, or a text field). */
export const runOptionControls = (options: readonly RunOption[]) =>
  options
    .map((o) => {
      const field = o.values
        ? `<select id="opt-${o.name}" name="${o.name}" aria-describedby="opt-${o.name}-hint">${o.values.map((v) => `<option value="${escapeHtml(v)}"${v === o.default ? ' selected' : ''}>${escapeHtml(v)}</option>`).join('')}</select>`
        : `<input type="text" id="opt-${o.name}" name="${o.name}" value="${escapeHtml(o.default)}" maxlength="${o.maxLength ?? 200}" aria-describedby="opt-${o.name}-hint">`;
      return `<label for="opt-${o.name}">${escapeHtml(o.label)} <code>${o.name}</code></label>${field}<p class="hint" id="opt-${o.name}-hint">${escapeHtml(o.description)}</p>`;
    })
    .join('');
/** The flow's options as a documented list (the markdown twin's view). */
export const runOptionList = (options: readonly RunOption[]): Block[] =>
  options.length
    ? [
        {
          kind: 'list',
          items: options.map(
            (o) =>
              [
                { code: o.name },
                `: ${o.description} `,
                ...(o.values
                  ? ['One of ', ...o.values.flatMap((v, i) => [...(i > 0 ? [', '] : []), { code: v }]), '; ']
                  : []),
                'default ',
                { code: o.default },
                '.',
              ] as Inline[],
          ),
        },
      ]
    : [];
