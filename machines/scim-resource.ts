import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * One SCIM resource of a tenant (RFC 7643, RFC 7644), stream `scim-user:<tenant>:<id>`,
 * `scim-group:<tenant>:<id>` or `scim-agent:<tenant>:<id>`. Every change carries the whole resource
 * after it, as stored (a password only as its hash), so a replay shows each version. The lifecycle
 * follows the `active` attribute: `active: false` deactivates (RFC 7643 §4.1.1), `true` reactivates, and a
 * deleted resource is gone (RFC 7644 §3.6).
 */
type ScimDocument = Record<string, unknown>;

export type ScimResourceEvent =
  | { type: 'scim.created'; at: number; resource: ScimDocument }
  | { type: 'scim.replaced'; at: number; resource: ScimDocument; from: ScimLiveState }
  | { type: 'scim.patched'; at: number; resource: ScimDocument; operations: unknown[]; from: ScimLiveState }
  /** Carries the resource as it was, so a purge can be signalled and a replay shows what went. */
  | { type: 'scim.deleted'; at: number; resource: ScimDocument };

/** The state a change left, recorded with it so that a deactivation is a fact of the log. */
export type ScimLiveState = 'active' | 'inactive';

export interface ScimResourceContext {
  resource?: ScimDocument;
  created?: number;
  lastModified?: number;
}

type Args = { context: ScimResourceContext; event: ScimResourceEvent };
type Changed = Exclude<ScimResourceEvent, { type: 'scim.deleted' }>;

/** `active: false` on a resource (any other value, or none, is active). */
const isInactive = (resource: unknown) =>
  typeof resource === 'object' && resource !== null && (resource as { active?: unknown }).active === false;

/** The machine's guards: pure, named, importable on their own. */
export const scimResourceGuards = {
  /** RFC 7643 §4.1.1: a resource created or changed with `active: false` is inactive. */
  leavesInactive: ({ event }: Args) => event.type !== 'scim.deleted' && isInactive(event.resource),
  /** A change that does not set `active: false` leaves (or makes) the resource active. */
  leavesActive: ({ event }: Args) => event.type !== 'scim.deleted' && !isInactive(event.resource),
};

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const scimResourceUpdates = {
  create: (_: ScimResourceContext, e: Changed) => ({ resource: e.resource, created: e.at, lastModified: e.at }),
  change: (_: ScimResourceContext, e: Changed) => ({ resource: e.resource, lastModified: e.at }),
  remove: (_: ScimResourceContext, e: { at: number }) => ({ resource: undefined, lastModified: e.at }),
} satisfies Record<string, ContextUpdate<ScimResourceContext>>;

const toActive = { guard: 'leavesActive' as const, target: 'active', actions: 'change' as const };
const toInactive = { guard: 'leavesInactive' as const, target: 'inactive', actions: 'change' as const };
/** PUT and PATCH move between the two live states by the resource's `active` after the change. */
const changes = {
  'scim.replaced': [
    { ...toInactive, description: 'PUT (RFC 7644 §3.5.1) with active false.' },
    { ...toActive, description: 'PUT (RFC 7644 §3.5.1) with active true or absent.' },
  ],
  'scim.patched': [
    { ...toInactive, description: 'PATCH (RFC 7644 §3.5.2) leaving active false.' },
    { ...toActive, description: 'PATCH (RFC 7644 §3.5.2) leaving active true or absent.' },
  ],
  'scim.deleted': {
    target: 'deleted',
    actions: 'remove' as const,
    description: 'DELETE (RFC 7644 §3.6): the resource is gone; a deleted user is signalled (RISC account-purged).',
  },
};

const scimResourceSetup = setup({
  types: { context: {} as ScimResourceContext, events: {} as ScimResourceEvent },
  guards: scimResourceGuards,
  actions: updateActions<ScimResourceContext, ScimResourceEvent, typeof scimResourceUpdates>(scimResourceUpdates),
});

/** One resource type's machine: the same lifecycle, published under the type's own id and stream prefix. */
const scimResourceMachineOf = (id: string, what: string, prefix: string) =>
  scimResourceSetup.createMachine({
    id,
    description: `A SCIM ${what} of one tenant (RFC 7643, RFC 7644), stream ${prefix}:<tenant>:<id>: created, replaced and patched, deactivated and reactivated by its active attribute, and deleted.`,
    initial: 'absent',
    context: {},
    states: {
      absent: {
        description: 'No resource yet.',
        on: {
          'scim.created': [
            { ...toInactive, actions: 'create', description: 'POST (RFC 7644 §3.3) with active false.' },
            { ...toActive, actions: 'create', description: 'POST (RFC 7644 §3.3): 201 with the resource.' },
          ],
        },
      },
      active: {
        description:
          'A live resource; a user here is enabled (a change to active false is signalled: RISC account-disabled).',
        on: changes,
      },
      inactive: {
        description:
          'A live resource with active false (RFC 7643 §4.1.1); a user here is disabled (back to active: RISC account-enabled).',
        on: changes,
      },
      deleted: { type: 'final', description: 'Deleted (RFC 7644 §3.6): its id answers 404.' },
    },
  });

export const scimUserMachine = scimResourceMachineOf('scimUser', 'User', 'scim-user');
export const scimGroupMachine = scimResourceMachineOf('scimGroup', 'Group', 'scim-group');
export const scimAgentMachine = scimResourceMachineOf(
  'scimAgent',
  'Agent (draft-wzdk-scim-agent-resource-00)',
  'scim-agent',
);
export type ScimResourceMachine = typeof scimUserMachine;

/** The machines' deciders: what their states mean to the services that ask (machines/deciders.ts). */
export const scimResourceStates = {
  /** The resource exists (active or not); deleted and absent ones do not. */
  live: inState('active', 'inactive'),
};
