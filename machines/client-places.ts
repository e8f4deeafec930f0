import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * The places one caller holds in a limited resource, stream `places:<kind>:<keyed fingerprint of the caller>`: the
 * Shared Signals streams an OAuth client holds, the targeted flow runs an address has under way (issue
 * 45 items 36 and 39). Counting the places and taking one are one turn of this stream, and the log
 * refuses an append on a stream that moved, so instances sharing one log cannot both take the last place.
 */
export type ClientPlacesEvent =
  | { type: 'places.counted'; at: number; holders: string[] }
  | { type: 'place.taken'; at: number; holder: string; limit: number }
  | { type: 'place.released'; at: number; holder: string };

/** A place and what holds it (a stream id, a run id), since when. */
export interface Place {
  holder: string;
  at: number;
}

export interface ClientPlacesContext {
  places: Place[];
  /** Whether the places held before this stream existed were counted in. */
  counted: boolean;
}

type E<T extends ClientPlacesEvent['type']> = Extract<ClientPlacesEvent, { type: T }>;
type GuardArgs = { context: ClientPlacesContext; event: ClientPlacesEvent };

/** The machine's guards: pure, named, importable on their own. */
export const clientPlacesGuards = {
  /** Counted once: the first count stands (a second instance counting at the same time is refused). */
  notCounted: ({ context }: GuardArgs) => !context.counted,
  /** A holder takes one place, and only while fewer than the limit are held. */
  placeFree: ({ context }: GuardArgs, e: E<'place.taken'>) =>
    !context.places.some((p) => p.holder === e.holder) && context.places.length < e.limit,
  holds: ({ context }: GuardArgs, e: E<'place.released'>) => context.places.some((p) => p.holder === e.holder),
};

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const clientPlacesUpdates = {
  countIn: (context: ClientPlacesContext, e: E<'places.counted'>) => ({
    counted: true,
    places: [
      ...context.places,
      ...[...new Set(e.holders)]
        .filter((h) => !context.places.some((p) => p.holder === h))
        .map((holder) => ({ holder, at: e.at })),
    ],
  }),
  take: (context: ClientPlacesContext, e: E<'place.taken'>) => ({
    places: [...context.places, { holder: e.holder, at: e.at }],
  }),
  release: (context: ClientPlacesContext, e: E<'place.released'>) => ({
    places: context.places.filter((p) => p.holder !== e.holder),
  }),
} satisfies Record<string, ContextUpdate<ClientPlacesContext>>;

export const clientPlacesMachine = setup({
  types: { context: {} as ClientPlacesContext, events: {} as ClientPlacesEvent },
  guards: clientPlacesGuards,
  actions: updateActions<ClientPlacesContext, ClientPlacesEvent, typeof clientPlacesUpdates>(clientPlacesUpdates),
}).createMachine({
  id: 'clientPlaces',
  description:
    'The places one caller holds in a limited resource, stream places:<kind>:<keyed caller fingerprint>: Shared Signals streams per client, targeted runs per address (service spec §8, decisions).',
  context: { places: [], counted: false },
  meta: {
    guards: {
      notCounted: 'The places held before the stream existed have not been counted in yet.',
      placeFree: 'The holder has no place yet and fewer than the limit are held.',
      holds: 'The holder has a place.',
    },
  },
  on: {
    'places.counted': {
      description:
        'The places held before this stream existed (streams created earlier) are counted in, once (decisions: limits per caller).',
      guard: 'notCounted',
      actions: 'countIn',
    },
    'place.taken': {
      description:
        'A stream created or a targeted run started takes a place; at the limit it is refused (service spec §8).',
      guard: { type: 'placeFree', params: ({ event }) => event },
      actions: 'take',
    },
    'place.released': {
      description: 'A stream deleted or a run ended gives its place back (decisions: limits per caller).',
      guard: { type: 'holds', params: ({ event }) => event },
      actions: 'release',
    },
  },
});
