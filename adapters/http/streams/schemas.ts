/** The portico-stream/1 document (services/streams/export.ts), as OpenAPI describes it. */
export const streamExportSchema = {
  description: 'A stream export: portico-stream/1 (docs/debugging.md)',
  type: 'object',
  additionalProperties: false,
  required: ['format', 'stream', 'kind', 'machine', 'commit', 'exported_at', 'events', 'final_state', 'digest'],
  properties: {
    format: { type: 'string', enum: ['portico-stream/1'] },
    stream: { type: 'string' },
    kind: { type: 'string' },
    machine: {
      type: 'object',
      required: ['id', 'version'],
      properties: { id: { type: 'string' }, version: { type: 'string' } },
    },
    commit: { type: 'string' },
    exported_at: { type: 'string', format: 'date-time' },
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sequence', 'version', 'at', 'type', 'data', 'state'],
        properties: {
          sequence: { type: 'integer' },
          version: { type: 'integer' },
          at: { type: 'string', format: 'date-time' },
          type: { type: 'string' },
          data: { type: 'object', additionalProperties: true },
          state: {},
        },
      },
    },
    final_state: {},
    digest: { type: 'string' },
  },
};

/** A HAR 1.2 document (services/flows/har.ts); its entries are kept whole. */
export const harSchema = {
  description: 'HAR 1.2: one page for the run, one entry per captured exchange',
  type: 'object',
  required: ['log'],
  properties: {
    log: {
      type: 'object',
      additionalProperties: true,
      required: ['version', 'creator', 'pages', 'entries'],
      properties: {
        version: { type: 'string', enum: ['1.2'] },
        creator: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' } } },
        pages: { type: 'array', items: { type: 'object', additionalProperties: true } },
        entries: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
  },
};

const runSide = {
  type: 'object',
  additionalProperties: true,
  properties: {
    stream: { type: 'string' },
    protocol: { type: 'string' },
    flow: { type: 'string' },
    events: { type: 'integer' },
  },
};

/** Two runs compared (services/streams/diff.ts). */
export const runDiffSchema = {
  description:
    'Two runs compared: first divergence of events, exchanges paired by step with differing and volatile fields',
  type: 'object',
  additionalProperties: true,
  required: ['a', 'b', 'same_flow', 'exchanges', 'same'],
  properties: {
    a: runSide,
    b: runSide,
    same_flow: { type: 'boolean' },
    first_divergence: { type: 'object', additionalProperties: true },
    exchanges: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          index: { type: 'integer' },
          step: { type: 'string' },
          presence: { type: 'string', enum: ['both', 'only_in_a', 'only_in_b'] },
          differences: { type: 'array', items: { type: 'object', additionalProperties: true } },
          volatile: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    same: { type: 'boolean' },
  },
};
