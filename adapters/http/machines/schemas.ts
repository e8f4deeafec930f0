const transition = {
  type: 'object',
  required: ['event'],
  properties: {
    event: { type: 'string' },
    target: { type: 'string' },
    guard: { type: 'string' },
    updates: {
      type: 'array',
      items: { type: 'string' },
      description:
        'The context updates the transition applies, in order (exported as <machine>Updates by machines/<name>.ts)',
    },
    description: { type: 'string' },
  },
};

/** `GET /api/machines`. */
export const machineListSchema = {
  type: 'object',
  required: ['machines'],
  properties: {
    machines: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'stream_prefix', 'version', 'states', 'events'],
        properties: {
          id: { type: 'string' },
          stream_prefix: { type: 'string' },
          description: { type: 'string' },
          version: { type: 'string' },
          states: { type: 'array', items: { type: 'string' } },
          events: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
};

/** `GET /api/machines/{id}` (services/machines/definition.ts). */
export const machineDefinitionSchema = {
  description: 'The machine definition (JSON); SCXML or Mermaid text with ?format=',
  type: 'object',
  required: ['id', 'version', 'initial', 'states', 'on', 'events', 'guards'],
  properties: {
    id: { type: 'string' },
    version: { type: 'string' },
    initial: { type: 'string' },
    description: { type: 'string' },
    states: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['type', 'final', 'on'],
        properties: {
          type: { type: 'string' },
          final: { type: 'boolean' },
          description: { type: 'string' },
          on: { type: 'array', items: transition },
        },
      },
    },
    on: { type: 'array', items: transition },
    events: { type: 'array', items: { type: 'string' } },
    guards: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' } } },
    },
    updates: { type: 'array', items: { type: 'string' } },
  },
};

/** `GET /api/machines/{id}/paths`. */
export const machinePathsSchema = {
  type: 'object',
  required: ['id', 'version', 'paths'],
  properties: {
    id: { type: 'string' },
    version: { type: 'string' },
    paths: {
      type: 'object',
      additionalProperties: {
        type: 'array',
        items: {
          type: 'object',
          properties: { event: { type: 'string' }, target: { type: 'string' }, guard: { type: 'string' } },
        },
      },
    },
  },
};
