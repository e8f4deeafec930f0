import { allRunOptions, flowsTakingOption, runOptionsOf } from '../../../services/flows/run-options.ts';

/** The JSON Schemas of the catalog and run routes (the OpenAPI contract is generated from them). */
/** An option's meaning and the flows it applies to, for the contract. */
const optionDoc = (name: string) => {
  const flows = flowsTakingOption(name);
  const option = flows.length
    ? runOptionsOf(...(flows[0].split('/') as [string, string])).find((o) => o.name === name)
    : undefined;
  return `${option?.description ?? ''} Applies to: ${flows.join(', ')}; default ${option?.default ?? '-'}.`.trim();
};

/** The run options as JSON Schema members, from their one declaration (services/flows/run-options.ts). */
export const runOptionProperties = Object.fromEntries(
  allRunOptions().map((o) => [
    o.name,
    {
      type: 'string',
      ...(o.values ? { enum: [...o.values] } : { maxLength: o.maxLength ?? 200 }),
      description: optionDoc(o.name),
    },
  ]),
);

export const errorResponse = { $ref: 'OAuthError#' };
const fieldChanges = {
  type: 'object',
  additionalProperties: { type: ['string', 'null'], maxLength: 4096 },
  maxProperties: 50,
};
/** `POST /api/runs/{id}/step`: `{}` or `{"edit": {...}}`; a value `null` removes the field. */
export const stepBodySchema = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  properties: {
    edit: {
      type: 'object',
      additionalProperties: false,
      properties: {
        query: fieldChanges,
        form: fieldChanges,
        headers: fieldChanges,
        json: { type: 'object', maxProperties: 50, description: 'Top-level members of a JSON body; null removes one' },
      },
    },
  },
};
export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } };
const specSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, title: { type: 'string' }, url: { type: 'string' } },
};
export const protocolSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    version: { type: 'string' },
    description: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    specs: { type: 'array', items: specSchema },
    flows: { type: 'integer' },
  },
};
const stepSchema = {
  type: 'object',
  properties: {
    order: { type: 'integer' },
    name: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    type: { type: 'string' },
    description: { type: 'string' },
    spec_ref: { type: 'string' },
  },
};
export const flowSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    category: { type: 'string' },
    executable: { type: 'boolean' },
    steps: { type: 'array', items: stepSchema },
    options: {
      type: 'array',
      description:
        'The JSON body members POST /api/protocols/{id}/demo/{flow} takes for this flow (none: an empty body)',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          description: { type: 'string' },
          values: { type: 'array', items: { type: 'string' } },
          default: { type: 'string' },
          max_length: { type: 'integer' },
        },
      },
    },
  },
};
export const runSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    run_id: { type: 'string' },
    protocol: { type: 'string' },
    flow: { type: 'string' },
    status: { type: 'string' },
  },
};
