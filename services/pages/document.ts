/**
 * One document model per page; HTML and markdown are two serializations of it (spec discovery rule 4),
 * so headings and links always agree between the twins.
 */
export type Inline = string | { code: string } | { link: string; href: string } | { strong: string } | { em: string };

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string; id?: string }
  | { kind: 'paragraph'; inlines: Inline[] }
  | { kind: 'list'; ordered?: boolean; items: Inline[][] }
  | { kind: 'code'; lang?: string; text: string }
  /** `rowIds`: an anchor per row (HTML only: a markdown table has none), for links to one row. */
  | { kind: 'table'; head: string[]; rows: Inline[][][]; rowIds?: string[] }
  | { kind: 'notice'; tone: 'info' | 'warning' | 'error' | 'ok'; inlines: Inline[] }
  /** A figure with an HTML rendering (e.g. server-rendered SVG) and its markdown equivalent. */
  | { kind: 'figure'; html: string; markdown: Block[]; caption: string }
  /** Raw HTML for interactive parts (forms); `markdown` says what the twin shows instead. */
  | { kind: 'html'; html: string; markdown: Block[] };

export interface PageDocument {
  title: string;
  description?: string;
  noindex?: boolean;
  blocks: Block[];
}
