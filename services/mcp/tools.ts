import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import type { Catalog } from '../content/catalog.ts';
import { OAuthError } from '../errors.ts';
import type { LookingGlass } from '../lookingglass/service.ts';
import type { McpServerConfig } from './config.ts';
import { registerMachineTools, type MachineToolDeps } from './machine-tools.ts';
import { registerSsfTools, type SsfToolDeps } from './ssf-tools.ts';
import { registerScimTools, type ScimToolDeps } from './scim-tools.ts';
import { registerSamlTools, type SamlToolDeps } from './saml-tools.ts';
import { registerStreamTools, type StreamToolDeps } from './stream-tools.ts';
import { READ_ONLY, result, str, toolError } from './tool-kit.ts';

export interface McpToolDeps extends StreamToolDeps, MachineToolDeps, SsfToolDeps, ScimToolDeps, SamlToolDeps {
  catalog: Catalog;
  lookingGlass: LookingGlass;
  isExecutable(protocol: string, flow: string): boolean;
}

// Compiled once: building the schemas per request would dominate the cost of a stateless call.
const LIST_PROTOCOLS_IN = fromJsonSchema<{ query?: string }>({
  type: 'object',
  properties: { query: str('Filter, e.g. "pkce" or "credential"') },
  additionalProperties: false,
});
const LIST_PROTOCOLS_OUT = fromJsonSchema({
  type: 'object',
  properties: { protocols: { type: 'array' } },
  required: ['protocols'],
});
const LIST_FLOWS_IN = fromJsonSchema<{ protocolId: string }>({
  type: 'object',
  properties: { protocolId: str('A protocol id from list_protocols') },
  required: ['protocolId'],
  additionalProperties: false,
});
const LIST_FLOWS_OUT = fromJsonSchema({
  type: 'object',
  properties: { protocol: { type: 'string' }, flows: { type: 'array' } },
  required: ['protocol', 'flows'],
});
const DESCRIBE_IN = fromJsonSchema<{ protocolId: string; flowId: string }>({
  type: 'object',
  properties: { protocolId: str('A protocol id'), flowId: str('A flow id from list_protocol_flows') },
  required: ['protocolId', 'flowId'],
  additionalProperties: false,
});
const DESCRIBE_OUT = fromJsonSchema({
  type: 'object',
  properties: { id: { type: 'string' }, steps: { type: 'array' } },
  required: ['id', 'steps'],
});
const DECODE_IN = fromJsonSchema<{ token: string }>({
  type: 'object',
  properties: { token: str('A compact JWS', 32_768) },
  required: ['token'],
  additionalProperties: false,
});
const DECODE_OUT = fromJsonSchema({
  type: 'object',
  properties: {
    format: { type: 'string' },
    header: { type: 'object' },
    payload: { type: 'object' },
    signature: { type: 'object' },
    claims: { type: 'array' },
    warnings: { type: 'array' },
  },
  required: ['format'],
});

/** Builds the MCP server: read-only tools over the catalog, the looking glass and the event streams. */
export function buildMcpServer(config: McpServerConfig, deps: McpToolDeps): McpServer {
  const server = new McpServer(
    {
      name: config.name,
      version: config.version,
      title: config.title,
      description: config.description,
      websiteUrl: config.websiteUrl,
    },
    { instructions: config.instructions },
  );
  const { catalog } = deps;

  server.registerTool(
    'list_protocols',
    {
      title: 'List protocols',
      description:
        'The protocols this sandbox runs, optionally filtered by a word in their name, description, tags or aliases.',
      inputSchema: LIST_PROTOCOLS_IN,
      outputSchema: LIST_PROTOCOLS_OUT,
      annotations: READ_ONLY,
    },
    async ({ query }) => {
      const q = query?.toLowerCase().trim();
      const protocols = catalog
        .protocols()
        .filter(
          (p) => !q || [p.id, p.name, p.description, ...p.tags, ...p.aliases].some((t) => t.toLowerCase().includes(q)),
        )
        .map((p) => ({
          id: p.id,
          name: p.name,
          version: p.version,
          description: p.description,
          tags: p.tags,
          specs: p.specs,
          flows: catalog.flows(p.id).length,
        }));
      return result({ protocols });
    },
  );

  server.registerTool(
    'list_protocol_flows',
    {
      title: 'List the flows of a protocol',
      description:
        'The flows of one protocol, with whether each can be run through POST /api/protocols/{id}/demo/{flow}.',
      inputSchema: LIST_FLOWS_IN,
      outputSchema: LIST_FLOWS_OUT,
      annotations: READ_ONLY,
    },
    async ({ protocolId }) => {
      if (!catalog.protocol(protocolId))
        return toolError(`No protocol "${protocolId}". Call list_protocols for the ids.`);
      const flows = catalog.flows(protocolId).map((f) => ({
        id: f.id,
        name: f.name,
        description: f.description,
        category: f.category,
        executable: deps.isExecutable(protocolId, f.id),
      }));
      return result({ protocol: protocolId, flows });
    },
  );

  server.registerTool(
    'describe_protocol_flow',
    {
      title: 'Describe a flow',
      description: 'The ordered steps of one flow: who talks to whom, what is sent, and the spec section behind it.',
      inputSchema: DESCRIBE_IN,
      outputSchema: DESCRIBE_OUT,
      annotations: READ_ONLY,
    },
    async ({ protocolId, flowId }) => {
      const flow = catalog.flow(protocolId, flowId);
      if (!flow) return toolError(`No flow "${flowId}" in "${protocolId}". Call list_protocol_flows.`);
      return result({
        id: flow.id,
        protocol: protocolId,
        name: flow.name,
        description: flow.description,
        category: flow.category,
        executable: deps.isExecutable(protocolId, flowId),
        steps: flow.steps,
        notes: flow.body,
        run: `POST ${config.websiteUrl}/api/protocols/${protocolId}/demo/${flowId}`,
      });
    },
  );

  server.registerTool(
    'decode_jwt',
    {
      title: 'Decode a JWT',
      description:
        "Decodes a JWT, verifies its signature when it comes from one of this origin's issuers, and explains every claim.",
      inputSchema: DECODE_IN,
      outputSchema: DECODE_OUT,
      annotations: READ_ONLY,
    },
    async ({ token }) => {
      try {
        return result({ ...(await deps.lookingGlass.decodeJwt(token)) });
      } catch (error) {
        if (error instanceof OAuthError) return toolError(error.description);
        throw error;
      }
    },
  );

  registerStreamTools(server, deps);
  registerMachineTools(server, deps);
  registerSsfTools(server, deps);
  registerScimTools(server, deps);
  registerSamlTools(server, deps);

  // The tool list is fixed for the server's life: it never sends notifications/tools/list_changed.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}
