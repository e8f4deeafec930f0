import { instance, type Viz } from '@viz-js/viz';
import type { DiagramRenderer } from '../../services/machines/diagram.ts';

let viz: Promise<Viz> | undefined;

/** Graphviz (WebAssembly, loaded once, no network) laying out DOT as SVG. */
export const graphvizSvg: DiagramRenderer = async (dot) => {
  viz ??= instance();
  const svg = (await viz).renderString(dot, { format: 'svg', engine: 'dot' });
  // The XML prolog and DOCTYPE are for files; an inline SVG starts at its element.
  return svg.slice(svg.indexOf('<svg'));
};
