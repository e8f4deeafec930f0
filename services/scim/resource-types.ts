import {
  AGENT_SCHEMA,
  AGENTAUTH_SCHEMA,
  COMMON_ATTRIBUTES,
  ENTERPRISE_SCHEMA,
  GROUP_SCHEMA,
  schemaById,
  USER_SCHEMA,
} from './schemas.ts';
import type { AttributeDef } from './schema-types.ts';

/** RFC 7643 §6: the resource types this service provider serves, each a stream category of the log. */
export interface ResourceType {
  name: 'User' | 'Group' | 'Agent';
  endpoint: '/Users' | '/Groups' | '/Agents';
  description: string;
  schema: string;
  extensions: ReadonlyArray<{ schema: string; required: boolean }>;
  /** The stream category: `<prefix>:<tenant>:<id>`. */
  streamPrefix: 'scim-user' | 'scim-group' | 'scim-agent';
  /** The attribute unique per tenant, case-insensitively (RFC 7643 §2.1 `uniqueness: server`). */
  unique?: 'userName' | 'name';
}

export const RESOURCE_TYPES: readonly ResourceType[] = [
  {
    name: 'User',
    endpoint: '/Users',
    description: 'User Account',
    schema: USER_SCHEMA,
    extensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
    streamPrefix: 'scim-user',
    unique: 'userName',
  },
  {
    name: 'Group',
    endpoint: '/Groups',
    description: 'Group',
    schema: GROUP_SCHEMA,
    extensions: [],
    streamPrefix: 'scim-group',
  },
  {
    name: 'Agent',
    endpoint: '/Agents',
    description: 'AI agent (draft-wzdk-scim-agent-resource-00, a draft)',
    schema: AGENT_SCHEMA,
    extensions: [{ schema: AGENTAUTH_SCHEMA, required: false }],
    streamPrefix: 'scim-agent',
    unique: 'name',
  },
];

export const resourceTypeNamed = (name: string) => RESOURCE_TYPES.find((t) => t.name === name);
export const resourceTypeAt = (endpoint: string) => RESOURCE_TYPES.find((t) => t.endpoint === endpoint);

/** Every schema URI a resource of `type` may name in `schemas`. */
export const schemasOf = (type: ResourceType) => [type.schema, ...type.extensions.map((e) => e.schema)];

/** The attributes at the top level of a resource (core schema and the common ones) or inside an extension. */
export function attributesOf(type: ResourceType, extension?: string): AttributeDef[] {
  if (extension) return schemaById(extension)?.attributes ?? [];
  return [...COMMON_ATTRIBUTES, ...(schemaById(type.schema)?.attributes ?? [])];
}

/** The extension of `type` named by `urn` (any case), as it is spelled in the schema. */
export const extensionNamed = (type: ResourceType, urn: string) =>
  type.extensions.find((e) => e.schema.toLowerCase() === urn.toLowerCase())?.schema;
