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

/** A run's `target`: an authorization server, a SCIM service provider, or a SAML SP of the user's own. */
export const targetSchema = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['issuer', 'client_id'],
      description:
        "Run against your own authorization server (OAuth 2.0 flows): its issuer (metadata discovered by RFC 8414, then OpenID discovery), a client registered there, and how it authenticates. Requests go through the outbound guard: https to public addresses, or this deployment's own origin; a server on this machine (http://127.0.0.1:PORT or http://localhost:PORT) needs Portico started with OUTBOUND_ALLOW_LOOPBACK=true, a test hook. The secret is never logged whole.",
      properties: {
        issuer: { type: 'string', maxLength: 500 },
        client_id: { type: 'string', maxLength: 200 },
        client_secret: { type: 'string', maxLength: 500 },
        scope: { type: 'string', maxLength: 500 },
        token_endpoint_auth_method: {
          type: 'string',
          enum: ['client_secret_basic', 'client_secret_post', 'none'],
        },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['base_url', 'token'],
      description:
        'Run scim/check-server against your own SCIM service provider: its base URL (e.g. https://example.com/scim/v2) and a bearer token it takes. Through the outbound guard like every target; the token is never logged whole.',
      properties: {
        base_url: { type: 'string', maxLength: 500 },
        token: { type: 'string', maxLength: 4000 },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      description:
        'Run saml/attack-lab against your own SAML SP, which must trust this origin’s IdP metadata (/saml/idp/metadata): its metadata URL (which names the rest), or its ACS URL and entity ID, optionally its HTTP-Redirect SingleLogoutService URL (for the DEFLATE bomb) and whether it wants signed assertions (default true). Through the outbound guard like every target.',
      properties: {
        metadata_url: { type: 'string', maxLength: 500 },
        idp_metadata_url: {
          type: 'string',
          maxLength: 500,
          description: 'saml/web-sso: your IdP, by its metadata URL',
        },
        acs_url: { type: 'string', maxLength: 500 },
        entity_id: { type: 'string', maxLength: 500 },
        slo_url: { type: 'string', maxLength: 500 },
        want_assertions_signed: { type: 'boolean' },
      },
    },
  ],
};
