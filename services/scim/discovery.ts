import { DEFAULT_PAGE_SIZE, MAX_RESULTS } from './query.ts';
import { BULK_LIMITS } from './bulk-limits.ts';
import { RESOURCE_TYPES } from './resource-types.ts';
import { SCHEMAS } from './schemas.ts';
import type { SchemaDef } from './schema-types.ts';

const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

const meta = (base: string, resourceType: string, path: string) => ({ resourceType, location: `${base}${path}` });

/** RFC 7643 §5 with RFC 9865 §4's `pagination`: what this service provider supports, truthfully. */
export function serviceProviderConfig(base: string, docs: string): Record<string, unknown> {
  return {
    schemas: [SPC_SCHEMA],
    documentationUri: docs,
    patch: { supported: true },
    bulk: { supported: true, maxOperations: BULK_LIMITS.maxOperations, maxPayloadSize: BULK_LIMITS.maxPayloadSize },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: true },
    sort: { supported: true },
    etag: { supported: true },
    pagination: {
      cursor: true,
      index: true,
      defaultPaginationMethod: 'index',
      defaultPageSize: DEFAULT_PAGE_SIZE,
      maxPageSize: MAX_RESULTS,
    },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: `An access token of ${base.replace(/\/scim\/v2$/, '')}/oauth2 with scope scim (RFC 6750); each client is its own tenant.`,
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: meta(base, 'ServiceProviderConfig', '/ServiceProviderConfig'),
  };
}

/** RFC 7643 §6: the resource types. */
export function resourceTypes(base: string): Record<string, unknown>[] {
  return RESOURCE_TYPES.map((t) => ({
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: t.name,
    name: t.name,
    endpoint: t.endpoint,
    description: t.description,
    schema: t.schema,
    ...(t.extensions.length > 0 ? { schemaExtensions: t.extensions.map((e) => ({ ...e })) } : {}),
    meta: meta(base, 'ResourceType', `/ResourceTypes/${t.name}`),
  }));
}

/** RFC 7643 §7: the schemas, each attribute with its characteristics. */
export function schemaDocuments(base: string): Record<string, unknown>[] {
  return SCHEMAS.map((s: SchemaDef) => ({
    schemas: [SCHEMA_SCHEMA],
    id: s.id,
    name: s.name,
    description: s.description,
    attributes: s.attributes,
    meta: meta(base, 'Schema', `/Schemas/${s.id}`),
  }));
}
