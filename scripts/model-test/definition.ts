import type { Http } from './http.ts';
import { transitionKey, type TransitionKey } from './model.ts';

/** One transition of the published definition (`GET /api/machines/{id}`). */
export interface PublishedTransition {
  from: string;
  event: string;
  to: string;
  guard?: string;
  key: TransitionKey;
}

/** A step of a published shortest path (`GET /api/machines/{id}/paths`). */
interface PathStep {
  event: string;
  target: string;
  guard?: string;
}

export interface Published {
  id: string;
  version: string;
  initial: string;
  transitions: PublishedTransition[];
  /** Events every state takes (the definition's top-level `on`), counted once as `* --event--> *`. */
  anywhere: Set<string>;
  paths: Record<string, PathStep[]>;
}

type On = Array<{ event: string; target?: string; guard?: string }>;

/** Reads a machine's definition and paths over HTTP, as any suite of the user's own would. */
export async function readPublished(http: Http, id: string): Promise<Published> {
  const definition = await http.call(`/api/machines/${encodeURIComponent(id)}`);
  if (definition.status !== 200) throw new Error(`GET /api/machines/${id}: ${definition.status} ${definition.text}`);
  const paths = await http.call(`/api/machines/${encodeURIComponent(id)}/paths`);
  if (paths.status !== 200) throw new Error(`GET /api/machines/${id}/paths: ${paths.status} ${paths.text}`);
  const d = definition.body as { version: string; initial: string; states: Record<string, { on: On }>; on?: On };
  const transitions: PublishedTransition[] = [];
  const seen = new Set<string>();
  const add = (from: string, t: On[number], to: string) => {
    const key = transitionKey(from, t.event, to);
    if (seen.has(key)) return;
    seen.add(key);
    transitions.push({ from, event: t.event, to, key, ...(t.guard ? { guard: t.guard } : {}) });
  };
  for (const [from, state] of Object.entries(d.states)) for (const t of state.on) add(from, t, t.target ?? from);
  const anywhere = new Set((d.on ?? []).map((t) => t.event));
  for (const t of d.on ?? []) add('*', t, '*');
  return { id, version: d.version, initial: d.initial, transitions, anywhere, paths: paths.body.paths };
}

/** The key an observed transition counts under: its own, or `* --event--> *` for an event of every state. */
export function countedKey(published: Published, key: TransitionKey): TransitionKey {
  const event = /--(.+)-->/.exec(key)?.[1];
  return event !== undefined && published.anywhere.has(event) ? transitionKey('*', event, '*') : key;
}
