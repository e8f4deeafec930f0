import type { FlowStep } from '../../../services/content/catalog.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';

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
  const heads = actors.map((a) => `<rect class="box" x="${x(a) - 80}" y="8" width="160" height="28" rx="6"/><text x="${x(a)}" y="27" text-anchor="middle">${escapeHtml(a)}</text><line class="lifeline" x1="${x(a)}" y1="36" x2="${x(a)}" y2="${height - 10}" stroke-dasharray="4 4"/>`);
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
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" role="img" aria-label="${escapeHtml(`Sequence diagram: ${title}`)}">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="currentColor"/></marker></defs>
${heads.join('\n')}
${rows.join('\n')}
</svg>`;
}
