import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../../services/errors.ts';
import type { Block, Inline, PageDocument } from '../../../services/pages/document.ts';
import type { RecordedExchange } from '../../../machines/flow-run.ts';
import { exchangesOf, type RunDiff } from '../../../services/streams/diff.ts';
import type { StreamExport } from '../../../services/streams/export.ts';
import { stateAt } from '../../../services/streams/time-travel.ts';
import { notFoundPage } from '../pages/error-pages.ts';
import { h, p } from '../pages/blocks.ts';
import { sendPage } from '../pages/respond.ts';

const show = (value: unknown) => (value === undefined ? '(absent)' : JSON.stringify(value));

/** `/streams/{stream_id}`: the timeline, each event with the state after it; `?at=<version>` selects one. */
export function streamPage(
  doc: StreamExport,
  selected: number | undefined,
  query: string,
  related: Array<{ stream: string; href: string }> = [],
): PageDocument {
  const href = (version: number) =>
    `/streams/${encodeURIComponent(doc.stream)}?${query ? `${query}&` : ''}at=${version}`;
  const blocks: Block[] = [
    h(1, `Stream ${doc.stream}`),
    p(
      `${doc.events.length} events folded by the `,
      {
        link: doc.machine.id,
        href: `/machines/${doc.machine.id}?state=${encodeURIComponent(String(doc.final_state))}`,
      },
      ' machine (version ',
      { code: doc.machine.version.slice(0, 12) },
      '), ending in ',
      { code: show(doc.final_state) },
      '. ',
      { link: 'Export', href: `/api/streams/${encodeURIComponent(doc.stream)}/export${query ? `?${query}` : ''}` },
    ),
    ...(related.length
      ? [
          p(
            'Took part in the same exchange: ',
            ...related.flatMap((r, i): Inline[] => [...(i ? [', '] : []), { link: r.stream, href: r.href }]),
            '.',
          ),
        ]
      : []),
    {
      kind: 'table',
      head: ['#', 'Time', 'Event', 'State after'],
      rows: doc.events.map((e) => [
        [{ link: String(e.version), href: href(e.version) }],
        [{ code: e.at }],
        [e.version === selected ? { strong: e.type } : e.type],
        [{ code: show(e.state) }],
      ]),
    },
  ];
  const at = selected === undefined ? undefined : stateAt(doc, selected);
  const event = doc.events.find((e) => e.version === selected);
  if (at && event)
    blocks.push(
      h(2, `After event ${event.version}: ${event.type}`),
      p('State ', { code: show(at.state) }, '. The event as stored, then the machine context at that point.'),
      { kind: 'code', lang: 'json', text: JSON.stringify(event.data, null, 2) },
      { kind: 'code', lang: 'json', text: JSON.stringify(at.context, null, 2) },
    );
  else blocks.push(p('Select an event to see the machine state and context at that point.'));
  return { title: `Stream ${doc.stream}`, noindex: true, blocks };
}

/** An exchange's summary fields, as the comparison shows them side by side. */
const summary = (x: RecordedExchange | undefined) =>
  x ? { request: `${x.request.method} ${x.request.url}`, status: String(x.response.status) } : undefined;

/** `/runs/{a}/diff/{b}`: the two runs side by side, differing fields marked, the first divergence named. */
export function diffPage(diff: RunDiff, a: StreamExport, b: StreamExport): PageDocument {
  const left = exchangesOf(a);
  const right = exchangesOf(b);
  const runLink = (side: RunDiff['a']): Inline => ({
    link: `${side.stream} (${side.protocol}/${side.flow})`,
    href: `/runs/${side.stream.slice('run:'.length)}`,
  });
  const blocks: Block[] = [
    h(1, 'Two runs compared'),
    p('a: ', runLink(diff.a), '; b: ', runLink(diff.b), '.'),
    {
      kind: 'notice',
      tone: diff.same ? 'ok' : 'warning',
      inlines: [
        diff.same
          ? 'The same up to volatile values (ids, times, nonces, codes, signatures).'
          : `Different${diff.same_flow ? '' : ' flows, aligned by step'}.`,
      ],
    },
  ];
  const d = diff.first_divergence;
  if (d)
    blocks.push(
      p(
        { strong: `First divergence at event ${d.index}: ` },
        'a ',
        { code: d.a ? `${d.a.type} → ${show(d.a.state)}` : '(ended)' },
        ', b ',
        { code: d.b ? `${d.b.type} → ${show(d.b.state)}` : '(ended)' },
      ),
    );
  for (const x of diff.exchanges) {
    blocks.push(h(2, `${x.index + 1}. ${x.step}`));
    const sa = summary(x.a_index === undefined ? undefined : left[x.a_index]);
    const sb = summary(x.b_index === undefined ? undefined : right[x.b_index]);
    const differs = new Set(x.differences.map((f) => f.pointer));
    const cell = (text: string | undefined, marked: boolean): Inline[] =>
      text === undefined ? ['(not in this run)'] : [marked ? { strong: text } : { code: text }];
    const rows: Inline[][][] = [
      [['request'], cell(sa?.request, sa?.request !== sb?.request), cell(sb?.request, sa?.request !== sb?.request)],
      [
        ['status'],
        cell(sa?.status, differs.has('/response/status')),
        cell(sb?.status, differs.has('/response/status')),
      ],
      ...x.differences.map((f): Inline[][] => [
        [{ strong: f.pointer }],
        [{ strong: show(f.a) }],
        [{ strong: show(f.b) }],
      ]),
    ];
    blocks.push(
      p(
        x.presence === 'both'
          ? `${x.differences.length} differing field(s), in bold; ${x.volatile.length} volatile (ids, times, nonces, signatures), not differences.`
          : `Only in ${x.presence === 'only_in_a' ? 'a' : 'b'}.`,
      ),
      { kind: 'table', head: ['Field', 'a', 'b'], rows },
    );
  }
  return { title: 'Two runs compared', noindex: true, blocks };
}

/** Sends a page, or the not-found page when the caller may not read what it names. */
export async function sendOrNotFound(
  request: FastifyRequest,
  reply: FastifyReply,
  build: () => Promise<PageDocument>,
): Promise<FastifyReply> {
  try {
    return await sendPage(request, reply, await build());
  } catch (error) {
    if (error instanceof OAuthError && error.status === 404)
      return sendPage(request, reply, notFoundPage(request.url.split('?')[0]!), 404);
    throw error;
  }
}
