import { fromJsonSchema, type McpServer } from '@modelcontextprotocol/server';
import { answer, READ_ONLY, str } from './tool-kit.ts';

export interface ScimToolDeps {
  /** A page of one resource type of the caller's tenant (the request's Bearer token, scope scim). */
  scimList(
    resourceType: string,
    query: { filter?: string; count?: number },
    authorization: string | undefined,
  ): Promise<object>;
  /** One resource of the caller's tenant, as `GET /scim/v2/{type}/{id}` answers it. */
  scimRead(resourceType: string, id: string, authorization: string | undefined): Promise<object>;
}

const TYPE = { type: 'string', enum: ['User', 'Group', 'Agent'], description: 'The SCIM resource type' };
const LIST_IN = fromJsonSchema<{ resourceType: 'User' | 'Group' | 'Agent'; filter?: string; count?: number }>({
  type: 'object',
  properties: {
    resourceType: TYPE,
    filter: str('An RFC 7644 §3.4.2.2 filter, e.g. userName sw "a"', 2_000),
    count: { type: 'integer', minimum: 0, maximum: 200, description: 'At most this many (default 100)' },
  },
  required: ['resourceType'],
  additionalProperties: false,
});
const READ_IN = fromJsonSchema<{ resourceType: 'User' | 'Group' | 'Agent'; id: string }>({
  type: 'object',
  properties: { resourceType: TYPE, id: str('The resource id', 64) },
  required: ['resourceType', 'id'],
  additionalProperties: false,
});
const OBJECT_OUT = fromJsonSchema({ type: 'object' });
const TOKEN_NOTE =
  'Send a client_credentials token of {base}/oauth2 with scope scim as the Bearer: each client reads its own tenant.';

/** `list_scim_resources` and `read_scim_resource`: the SCIM service provider, read only (docs/scim.md). */
export function registerScimTools(server: McpServer, deps: ScimToolDeps): void {
  const authorizationOf = (ctx: { http?: { req?: { headers: Headers } } }) =>
    ctx.http?.req?.headers.get('authorization') ?? undefined;
  server.registerTool(
    'list_scim_resources',
    {
      title: 'List SCIM resources',
      description: `Users, groups or agents of the caller's SCIM tenant (RFC 7644 §3.4.2), optionally filtered: a ListResponse. ${TOKEN_NOTE}`,
      inputSchema: LIST_IN,
      outputSchema: OBJECT_OUT,
      annotations: READ_ONLY,
    },
    async ({ resourceType, filter, count }, ctx) =>
      answer(() => deps.scimList(resourceType, { filter, count }, authorizationOf(ctx))),
  );
  server.registerTool(
    'read_scim_resource',
    {
      title: 'Read a SCIM resource',
      description: `One user, group or agent of the caller's SCIM tenant (RFC 7644 §3.4.1), with its meta.version. ${TOKEN_NOTE}`,
      inputSchema: READ_IN,
      outputSchema: OBJECT_OUT,
      annotations: READ_ONLY,
    },
    async ({ resourceType, id }, ctx) => answer(() => deps.scimRead(resourceType, id, authorizationOf(ctx))),
  );
}
