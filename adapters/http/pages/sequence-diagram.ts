import type { FlowStep } from '../../../services/content/catalog.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';

/** Lifelines with their name boxes, the rows drawn between them, in one accessible SVG. */
export function lifelineDiagram(input: {
  actors: string[];
  x: (actor: string) => number;
  boxWidth: number;
  width: number;
  height: number;
  label: string;
  rows: string[];
  marker: string;
}): string {
  const half = input.boxWidth / 2;
  const heads = input.actors.map((a) => {
    const cx = input.x(a);
    return `<rect class="box" x="${cx - half}" y="8" width="${input.boxWidth}" height="28" rx="6"/><text x="${cx}" y="27" text-anchor="middle">${escapeHtml(a)}</text><line class="lifeline" x1="${cx}" y1="36" x2="${cx}" y2="${input.height - 8}" stroke-dasharray="4 4"/>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${input.width} ${input.height}" width="${input.width}" role="img" aria-label="${escapeHtml(input.label)}">
<defs><marker id="${input.marker}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="currentColor"/></marker></defs>
${heads.join('\n')}
${input.rows.join('\n')}
</svg>`;
}

/** A server-rendered SVG sequence diagram of a flow's steps (no client-side library, no CDN). */
export function sequenceDiagramSvg(steps: FlowStep[], title: string): string {
  const actors: string[] = [];
  for (const s of steps) for (const a of [s.from, s.to]) if (!actors.includes(a)) actors.push(a);
  const colWidth = 190;
  const width = Math.max(actors.length * colWidth, 400);
  const x = (a: string) => actors.indexOf(a) * colWidth + colWidth / 2;
  const top = 50;
  const rowHeight = 46;
  const height = top + steps.length * rowHeight + 30;
  const rows = steps.map((s, i) => {
    const y = top + i * rowHeight + 26;
    const label = `<text x="${(x(s.from) + x(s.to)) / 2}" y="${y - 8}" text-anchor="middle">${s.order}. ${escapeHtml(s.name)}</text>`;
    if (s.from === s.to) {
      const cx = x(s.from);
      return `${label.replace(`x="${cx}"`, `x="${cx + 60}"`)}<path class="msg" d="M${cx} ${y} h30 v12 h-30" fill="none" marker-end="url(#arrow)"/>`;
    }
    const dashed = s.type === 'response' || s.type === 'redirect' ? ' stroke-dasharray="6 3"' : '';
    return `${label}<line class="msg" x1="${x(s.from)}" y1="${y}" x2="${x(s.to)}" y2="${y}"${dashed} marker-end="url(#arrow)"/>`;
  });
  return lifelineDiagram({
    actors,
    x,
    boxWidth: 160,
    width,
    height,
    label: `Sequence diagram: ${title}`,
    rows,
    marker: 'arrow',
  });
}
