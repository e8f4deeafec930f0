import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * One SCIM tenant (a client of `{base}/oauth2`), stream `scim-tenant:<tenant>`: seeded once with the
 * demo data, and the register of its unique names (RFC 7643 §2.1 `uniqueness: server`, case-insensitive),
 * so that two instances never give one `userName` to two users.
 */
export type ScimTenantEvent =
  | { type: 'scim.tenant_seeded'; at: number }
  | { type: 'scim.name_claimed'; at: number; resourceType: string; key: string; id: string }
  | { type: 'scim.name_released'; at: number; resourceType: string; key: string; id: string };

export interface ScimTenantContext {
  /** [resource type, lower-cased name, resource id]. */
  names: Array<[string, string, string]>;
}

type Args = { context: ScimTenantContext; event: ScimTenantEvent };
type NameEvent = Extract<ScimTenantEvent, { key: string }>;

const holderOf = (context: ScimTenantContext, e: NameEvent) =>
  context.names.find(([type, key]) => type === e.resourceType && key === e.key)?.[2];

/** The machine's guards: pure, named, importable on their own. */
export const scimTenantGuards = {
  /** A name is claimed only when it is free, or already held by the same resource. */
  nameFree: ({ context, event }: Args) => {
    const holder = holderOf(context, event as NameEvent);
    return holder === undefined || holder === (event as NameEvent).id;
  },
  /** Only the resource holding a name releases it. */
  nameHeld: ({ context, event }: Args) => holderOf(context, event as NameEvent) === (event as NameEvent).id,
};

export const scimTenantUpdates = {
  claim: (context: ScimTenantContext, e: NameEvent) => ({
    names: [
      ...context.names.filter(([type, key]) => !(type === e.resourceType && key === e.key)),
      [e.resourceType, e.key, e.id] as [string, string, string],
    ],
  }),
  release: (context: ScimTenantContext, e: NameEvent) => ({
    names: context.names.filter(([type, key]) => !(type === e.resourceType && key === e.key)),
  }),
} satisfies Record<string, ContextUpdate<ScimTenantContext>>;

const nameEvents = {
  'scim.name_claimed': {
    guard: 'nameFree' as const,
    actions: 'claim' as const,
    description:
      'A resource takes a unique name (POST, or a PUT or PATCH renaming it); a taken name is 409 uniqueness.',
  },
  'scim.name_released': {
    guard: 'nameHeld' as const,
    actions: 'release' as const,
    description: 'A deleted or renamed resource gives its name back (RFC 7644 §3.6).',
  },
};

export const scimTenantMachine = setup({
  types: { context: {} as ScimTenantContext, events: {} as ScimTenantEvent },
  guards: scimTenantGuards,
  actions: updateActions<ScimTenantContext, ScimTenantEvent, typeof scimTenantUpdates>(scimTenantUpdates),
}).createMachine({
  id: 'scimTenant',
  description:
    'A SCIM tenant (RFC 7644 §6 leaves tenancy to the service provider; decisions: one per OAuth client), stream scim-tenant:<tenant>: seeded once with demo users, groups and an agent, holding the register of names unique per tenant (RFC 7643 §2.1).',
  initial: 'empty',
  context: { names: [] },
  states: {
    empty: {
      description: 'No call yet: the first one seeds the demo data.',
      on: {
        'scim.tenant_seeded': {
          target: 'seeded',
          description: 'The first call of the client: the demo data is added once (decisions: SCIM tenants).',
        },
        ...nameEvents,
      },
    },
    seeded: { description: 'The tenant holds its resources.', on: nameEvents },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const scimTenantStates = {
  /** Not seeded yet. */
  empty: inState('empty'),
};
