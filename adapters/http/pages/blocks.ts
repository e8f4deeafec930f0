import type { Block, Inline } from '../../../services/pages/document.ts';

/** A paragraph of inlines. */
export const p = (...inlines: Inline[]): Block => ({ kind: 'paragraph', inlines });
/** A heading. */
export const h = (level: 1 | 2 | 3, text: string): Block => ({ kind: 'heading', level, text });
