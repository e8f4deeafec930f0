import { setup } from 'xstate';
import { inState } from './deciders.ts';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * An SP registered by its metadata (DYNAMIC_CLIENTS=true, decisions §11), stream
 * `saml-sp:<hash of its entity ID>`: the metadata XML as registered, read again (certificates checked)
 * each time the IdP looks the SP up.
 */
export type SamlServiceProviderEvent = {
  type: 'sp.registered';
  at: number;
  entityId: string;
  metadata: string;
  source: string;
};

export interface SamlServiceProviderContext {
  entityId?: string;
  metadata?: string;
  source?: string;
  registeredAt?: number;
}

export const samlServiceProviderUpdates = {
  register: (_: SamlServiceProviderContext, e: SamlServiceProviderEvent) => ({
    entityId: e.entityId,
    metadata: e.metadata,
    source: e.source,
    registeredAt: e.at,
  }),
} satisfies Record<string, ContextUpdate<SamlServiceProviderContext>>;

export const samlServiceProviderMachine = setup({
  types: { context: {} as SamlServiceProviderContext, events: {} as SamlServiceProviderEvent },
  actions: updateActions<SamlServiceProviderContext, SamlServiceProviderEvent, typeof samlServiceProviderUpdates>(
    samlServiceProviderUpdates,
  ),
}).createMachine({
  id: 'samlServiceProvider',
  description:
    'An SP registered by its metadata (SAML metadata §2.4.4; the DYNAMIC_CLIENTS extension), stream saml-sp:<hash of the entity ID>: registered once, its entity ID then taken.',
  initial: 'absent',
  context: {},
  states: {
    absent: {
      description: 'Not registered.',
      on: {
        'sp.registered': {
          target: 'registered',
          actions: 'register',
          description:
            'Metadata posted or fetched through the outbound guard, its certificates checked (SAML metadata §2.4.1.1).',
        },
      },
    },
    registered: {
      type: 'final',
      description: 'Known to the IdP; a second registration of the entity ID is refused.',
    },
  },
});

/** The machine's deciders: what its states mean to the services that ask (machines/deciders.ts). */
export const samlServiceProviderStates = {
  /** A registered SP. */
  registered: inState('registered'),
};
