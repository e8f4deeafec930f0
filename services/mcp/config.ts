import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The one description of this origin's MCP server. The server itself, its card and the AI catalog are
 * all built from it, so what `initialize` / `server/discover` report cannot disagree with them.
 */
export interface McpServerConfig {
  name: string;
  title: string;
  version: string;
  description: string;
  websiteUrl: string;
  endpoint: string;
  /** The endpoint that demands OAuth (docs/mcp.md), its RFC 9728 document and its authorization server. */
  userEndpoint: string;
  /** Whether that endpoint is served (MCP_USER_ENDPOINT, an extension off by default). */
  userEndpointServed: boolean;
  userResourceMetadata: string;
  authorizationServer: string;
  cardUrl: string;
  /** Protocol revisions the running server answers, newest first (see `withServedVersions`). */
  protocolVersions: string[];
  instructions: string;
}

export function mcpServerConfig(baseUrl: string, version: string, userEndpointServed = false): McpServerConfig {
  return {
    name: 'io.portico/identity-sandbox',
    title: 'Portico identity protocol sandbox',
    version,
    // The server card schema allows at most 100 characters.
    description: 'Read-only tools over the Portico protocol catalog: list flows, describe each step, decode a JWT.',
    websiteUrl: baseUrl,
    endpoint: `${baseUrl}/mcp`,
    userEndpoint: `${baseUrl}/mcp/user`,
    userEndpointServed,
    userResourceMetadata: `${baseUrl}/.well-known/oauth-protected-resource/mcp/user`,
    authorizationServer: `${baseUrl}/oauth2`,
    cardUrl: `${baseUrl}/mcp/server-card`,
    protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS]
      .filter((v) => v !== '2024-10-07')
      .sort()
      .reverse(),
    instructions: `Every token here is sandbox data. Every tool here only reads. Use list_protocols, then list_protocol_flows and describe_protocol_flow; decode_jwt explains any JWT; export_stream and diff_runs read a run’s event stream and compare two runs; get_machine gives a state machine as data.${userEndpointServed ? ` To run a flow, sign in at ${baseUrl}/mcp/user (OAuth, scope mcp:write): start_flow runs one (mode step pauses before every request; step_run and continue_run move it on).` : ' To run a flow, POST /api/protocols/{protocol}/{flow} over HTTP.'}`,
  };
}

/**
 * The card lists exactly the revisions the running server negotiates: those its `server/discover`
 * reports and those its `initialize` agrees to, so card and endpoint never disagree.
 */
export function withServedVersions(c: McpServerConfig, discovered: string[]): McpServerConfig {
  return { ...c, protocolVersions: [...new Set(discovered)].sort().reverse() };
}

/** The MCP server card (served at /mcp/server-card). */
export function serverCard(c: McpServerConfig) {
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: c.name,
    version: c.version,
    title: c.title,
    description: c.description,
    websiteUrl: c.websiteUrl,
    remotes: [
      { type: 'streamable-http', url: c.endpoint, supportedProtocolVersions: c.protocolVersions },
      ...(c.userEndpointServed ? [userRemote(c)] : []),
    ],
  };
}

/** The protected endpoint as a remote of the card. */
function userRemote(c: McpServerConfig) {
  return {
    type: 'streamable-http',
    url: c.userEndpoint,
    supportedProtocolVersions: c.protocolVersions,
    headers: [
      {
        name: 'Authorization',
        description: `An access token of ${c.authorizationServer} for this resource (RFC 8707), scope mcp:read, mcp:write to start flows`,
        isRequired: true,
        isSecret: true,
      },
    ],
    _meta: { 'io.portico/authorization': userAuthorization(c) },
  };
}

/** How the protected endpoint is authorized, as the MCP authorization specification has a client find out. */
function userAuthorization(c: McpServerConfig) {
  return {
    required: true,
    protected_resource_metadata: c.userResourceMetadata,
    authorization_servers: [c.authorizationServer],
    scopes_supported: ['mcp:read', 'mcp:write'],
  };
}

/** The AI catalog (served at /.well-known/ai-catalog.json). */
export function aiCatalog(c: McpServerConfig) {
  return {
    specVersion: '1.0',
    entries: [
      {
        identifier: c.name,
        type: 'application/mcp-server-card+json',
        url: c.cardUrl,
        name: c.title,
        description: c.description,
        endpoint: c.endpoint,
        authorization: { required: false },
      },
      ...(c.userEndpointServed ? [userCatalogEntry(c)] : []),
    ],
  };
}

function userCatalogEntry(c: McpServerConfig) {
  return {
    identifier: `${c.name}/user`,
    type: 'application/mcp-server-card+json',
    url: c.cardUrl,
    name: `${c.title}: signed-in tools`,
    description:
      'whoami, my_runs, start_flow, step_run and continue_run for the person an OAuth access token speaks for.',
    endpoint: c.userEndpoint,
    authorization: userAuthorization(c),
  };
}
