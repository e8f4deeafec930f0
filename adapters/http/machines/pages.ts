import type { Block, PageDocument } from '../../../services/pages/document.ts';
import type { PublishedMachine } from '../../../services/machines/registry.ts';
import { toMermaid } from '../../../services/machines/formats.ts';
import { citedRules } from '../../../services/machines/citations.ts';
import { escapeHtml } from '../../../services/pages/render-html.ts';
import { h, p } from '../pages/blocks.ts';

/** `/machines`: every machine with its stream kind, states and version. */
export function machinesPage(machines: PublishedMachine[]): PageDocument {
  return {
    title: 'State machines',
    description: 'Every state machine of Portico as data: definitions, SCXML, Mermaid, paths and diagrams.',
    blocks: [
      h(1, 'State machines'),
      p(
        'Each kind of event stream is folded by one XState machine. Its definition is served as data (',
        { link: 'JSON', href: '/api/machines' },
        '), as SCXML and Mermaid, and drawn here.',
      ),
      {
        kind: 'table',
        head: ['Machine', 'Stream', 'States', 'Version'],
        rows: machines.map((m) => [
          [{ link: m.id, href: `/machines/${m.id}` }],
          [{ code: `${m.stream_prefix}:<id>` }],
          [String(Object.keys(m.definition.states).length)],
          [{ code: m.definition.version.slice(0, 12) }],
        ]),
      },
    ],
  };
}

/**
 * Graphviz's SVG scaled to the page (its viewBox kept, at most its natural width) and named for
 * assistive technology, so a wide machine never makes a scrolling region of the page.
 */
function fittedSvg(svg: string, label: string): string {
  return svg.replace(
    /^<svg([^>]*?)\swidth="([\d.]+)pt"\s+height="[\d.]+pt"/,
    (_match, before: string, width: string) =>
      `<svg${before} width="100%" style="max-width:${width}pt;height:auto" role="img" aria-label="${escapeHtml(label)}"`,
  );
}

/** The anchor of one transition on its machine's page: `t-<from>-<event>-<to>`, in characters safe in a URL. */
const transitionAnchor = (t: { from: string; event: string; to: string; guard?: string }) =>
  `t-${[t.from === '*' ? 'any' : t.from, t.event, t.to === '*' ? 'any' : t.to, ...(t.guard ? [t.guard] : [])]
    .join('-')
    .replace(/[^A-Za-z0-9_.-]/g, '_')}`;

/** `/machines/{id}`: the diagram, then each state with its transitions (the markdown twin has the same as text). */
export function machinePage(m: PublishedMachine, svg: string, current?: string): PageDocument {
  const d = m.definition;
  const blocks: Block[] = [
    h(1, `Machine ${d.id}`),
    ...(d.description ? [p(d.description)] : []),
    p(
      'Folds ',
      { code: `${m.stream_prefix}:<id>` },
      ' streams. Version ',
      { code: d.version },
      '. As data: ',
      { link: 'JSON', href: `/api/machines/${d.id}` },
      ', ',
      { link: 'SCXML', href: `/api/machines/${d.id}?format=scxml` },
      ', ',
      { link: 'Mermaid', href: `/api/machines/${d.id}?format=mermaid` },
      ', ',
      { link: 'paths', href: `/api/machines/${d.id}/paths` },
      '.',
    ),
    ...(current ? [p('Current state, highlighted: ', { code: current }, '.')] : []),
    {
      kind: 'figure',
      html: fittedSvg(svg, `State diagram of the ${d.id} machine`),
      caption: `The ${d.id} machine: states, transitions labelled with events and [guards]; final states doubly circled`,
      markdown: [{ kind: 'code', lang: 'mermaid', text: toMermaid(d) }],
    },
    h(2, 'States'),
  ];
  for (const [name, state] of Object.entries(d.states)) {
    blocks.push({ kind: 'heading', level: 3, text: `${name}${state.final ? ' (final)' : ''}`, id: `state-${name}` });
    if (state.description) blocks.push(p(state.description));
    if (state.on.length)
      blocks.push({
        kind: 'table',
        head: ['Event', 'Target', 'Guard', 'Rule'],
        // Every transition is an anchor, so a rule (below) and other pages can link to it.
        rowIds: state.on.map((t) =>
          transitionAnchor({ from: name, event: t.event, to: t.target ?? name, guard: t.guard }),
        ),
        rows: state.on.map((t) => [
          [{ code: t.event }],
          [t.target ? { link: t.target, href: `#state-${t.target}` } : '(stays)'],
          [t.guard ? { code: t.guard } : '-'],
          [t.description ?? '-'],
        ]),
      });
  }
  if (d.on.length)
    blocks.push(
      { kind: 'heading', level: 2, text: 'In any state', id: 'any-state' },
      {
        kind: 'table',
        head: ['Event', 'Target', 'Guard', 'Rule'],
        rowIds: d.on.map((t) => transitionAnchor({ from: '*', event: t.event, to: t.target ?? '*', guard: t.guard })),
        rows: d.on.map((t) => [
          [{ code: t.event }],
          [t.target ? { link: t.target, href: `#state-${t.target}` } : '(stays)'],
          [t.guard ? { code: t.guard } : '-'],
          [t.description ?? '-'],
        ]),
      },
    );
  const rules = citedRules(d);
  if (rules.length)
    blocks.push(
      h(2, 'Rules and their transitions'),
      p('Each rule the transitions cite, with the transitions that implement it.'),
      {
        kind: 'table',
        head: ['Rule', 'Transitions'],
        rows: rules.map((r) => [
          [r.rule],
          r.transitions.flatMap((t, i) => [
            ...(i > 0 ? ['; '] : []),
            { link: `${t.from} --${t.event}--> ${t.to}`, href: `#${transitionAnchor(t)}` },
          ]),
        ]),
      },
    );
  return { title: `Machine ${d.id}`, description: `The ${d.id} state machine of Portico`, blocks };
}
