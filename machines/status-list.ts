import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * The credential status lists' allocation records (docs/status.md): `status-lists:registry` names each
 * list as it is opened; `status-list:<id>` holds the index reservations of one list. Both are appended
 * with their expected version, so instances sharing a log never hand out one index twice.
 */
export interface StatusListRegistryContext {
  lists: Array<{ listId: string; size: number; bits: number }>;
}
export interface StatusListContext {
  /** How many indices have been reserved (each reserved index is handed out at most once). */
  reserved: number;
}

export type StatusListRegistryEvent = {
  type: 'status_list.opened';
  at: number;
  list_id: string;
  size: number;
  bits: number;
};
export type StatusListEvent = { type: 'status_list.indices_reserved'; at: number; indices: number[] };

/** The machines' guards (none: an append's expected version is what refuses a race). */
export const statusListRegistryGuards = {};
export const statusListGuards = {};

/** The machines' context updates: pure, named, importable on their own. */
export const statusListRegistryUpdates = {
  recordList: (context: StatusListRegistryContext, e: StatusListRegistryEvent) => ({
    lists: [...context.lists, { listId: e.list_id, size: e.size, bits: e.bits }],
  }),
} satisfies Record<string, ContextUpdate<StatusListRegistryContext>>;
export const statusListUpdates = {
  recordReservation: (context: StatusListContext, e: StatusListEvent) => ({
    reserved: context.reserved + e.indices.length,
  }),
} satisfies Record<string, ContextUpdate<StatusListContext>>;

export const statusListRegistryMachine = setup({
  types: { context: {} as StatusListRegistryContext, events: {} as StatusListRegistryEvent },
  guards: statusListRegistryGuards,
  actions: updateActions<StatusListRegistryContext, StatusListRegistryEvent, typeof statusListRegistryUpdates>(
    statusListRegistryUpdates,
  ),
}).createMachine({
  id: 'statusListRegistry',
  description:
    'Every credential status list in the order opened, stream status-lists:registry; the last one is filled (draft-ietf-oauth-status-list §4; docs/status.md).',
  context: { lists: [] },
  on: {
    'status_list.opened': {
      description: 'A new list of 131,072 entries of 2 bits, opened when the last one is full (§4.1; decisions).',
      actions: 'recordList',
    },
  },
});

export const statusListMachine = setup({
  types: { context: {} as StatusListContext, events: {} as StatusListEvent },
  guards: statusListGuards,
  actions: updateActions<StatusListContext, StatusListEvent, typeof statusListUpdates>(statusListUpdates),
}).createMachine({
  id: 'statusList',
  description:
    'The index reservations of one credential status list, stream status-list:<id>: indices drawn at random among unused ones (draft-ietf-oauth-status-list §13.2; docs/status.md).',
  context: { reserved: 0 },
  on: {
    'status_list.indices_reserved': {
      description: 'Up to 16 unused indices reserved at once, each handed to one credential (§13.2; decisions).',
      actions: 'recordReservation',
    },
  },
});
