import { localhostAllowedOrigins, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { resourceTypeNamed } from '../../../services/scim/resource-types.ts';
import { scimError } from '../../../services/scim/errors.ts';
import { readListQuery } from '../../../services/scim/query.ts';
import { listResponse } from '../scim/list-response.ts';
import { publishedServiceProviders } from '../saml/demo-routes.ts';
import type { FastifyInstance } from 'fastify';
import { shortestPaths } from '../../../services/machines/paths.ts';
import { aiCatalog, mcpServerConfig, serverCard, withServedVersions } from '../../../services/mcp/config.ts';
import { buildMcpServer } from '../../../services/mcp/tools.ts';
import { diffRuns } from '../../../services/streams/diff.ts';
import type { StreamCredentials } from '../../../services/streams/readers.ts';
import type { MainContext } from '../main/context.ts';
import { sendDocument } from '../main/documents.ts';
import { exportFor } from '../streams/readable-export.ts';
import { statelessMcpHandler } from './server-pool.ts';
import { serveMcp } from './transport.ts';
import { mcpUserRoutes } from './user-endpoint.ts';

const MODERN_PROBE_REVISION = '2026-07-28';

async function discoverVersions(fetchMcp: (r: Request) => Promise<Response>, endpoint: string): Promise<string[]> {
  const body = {
    jsonrpc: '2.0',
    id: 'card',
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_PROBE_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'portico-card', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const res = await fetchMcp(
    new Request(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_PROBE_REVISION,
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify(body),
    }),
  );
  const json = (await res.json().catch(() => ({}))) as { result?: { supportedVersions?: string[] } };
  return json.result?.supportedVersions ?? [];
}

/** The revisions `initialize` settles on when a client asks for them (the SDK answers its own newest otherwise). */
async function initializeVersions(fetchMcp: (r: Request) => Promise<Response>, endpoint: string): Promise<string[]> {
  const agreed: string[] = [];
  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    const res = await fetchMcp(
      new Request(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'card',
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'portico-card', version: '1' } },
        }),
      }),
    );
    // The answer is JSON or one server-sent event carrying it.
    const text = await res.text();
    const json = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    const answered = (JSON.parse(json) as { result?: { protocolVersion?: string } }).result?.protocolVersion;
    if (answered === version) agreed.push(version);
  }
  return agreed;
}

/** The SCIM read tools: the caller's tenant by its Bearer token, as `GET /scim/v2/...` would read it. */
function scimToolDeps(ctx: MainContext) {
  const scimBase = `${ctx.config.baseUrl}/scim/v2`;
  const typeOf = (name: string) => {
    const type = resourceTypeNamed(name);
    if (!type) throw scimError(404, `No resource type ${name}`);
    return type;
  };
  const tenant = (authorization: string | undefined, path: string) =>
    ctx.scim.tenant({ authorization, method: 'GET', url: `${scimBase}${path}` });
  return {
    scimList: async (name: string, query: { filter?: string; count?: number }, authorization: string | undefined) => {
      const type = typeOf(name);
      const page = await ctx.scim.service.list(await tenant(authorization, type.endpoint), type, readListQuery(query));
      return listResponse(page.items, page);
    },
    scimRead: async (name: string, id: string, authorization: string | undefined) => {
      const type = typeOf(name);
      const at = await tenant(authorization, `${type.endpoint}/${id}`);
      return ctx.scim.service.rendered(at, await ctx.scim.service.get(at, type, id));
    },
  };
}

/** `/mcp` (streamable HTTP, SDK v2), `/mcp/server-card` and `/.well-known/ai-catalog.json`. */
export async function mcpRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const userEndpoint = ctx.config.extensions.mcpUserEndpoint; // MCP_USER_ENDPOINT (decisions §11)
  const base = mcpServerConfig(ctx.config.baseUrl, ctx.config.version, userEndpoint);
  const deps = {
    catalog: ctx.catalog,
    lookingGlass: ctx.lookingGlass,
    isExecutable: (p: string, f: string) => ctx.flowRuns.executable(p, f),
    exportStream: (streamId: string, credentials: StreamCredentials) => exportFor(ctx, streamId, credentials),
    machine: (id: string) => {
      const found = ctx.machines.get(id);
      return found && { definition: found.definition, paths: shortestPaths(found.machine) };
    },
    machineIds: () => ctx.machines.list().map((m) => m.id),
    startFlow: async (protocol: string, flow: string, options: Record<string, unknown>, caller: string) =>
      ctx.flowRuns.answer(await ctx.flowRuns.launch(protocol, flow, options, caller)),
    controlRun: (id: string, runToken: string, command: Parameters<typeof ctx.flowRuns.control>[2]) =>
      ctx.flowRuns.control(id, `Bearer ${runToken}`, command),
    ssfReceiver: (id: string) => ctx.ssf.receiver(id),
    ssfStream: (id: string, authorization: string | undefined) => ctx.ssf.stream(id, authorization),
    ...scimToolDeps(ctx),
    samlDecode: (input: { message: string; certificate?: string }) => ctx.saml.decode(input),
    samlServiceProviders: () => publishedServiceProviders(ctx.saml),
    diffRuns: async (a: string, b: string, tokens: { a?: string; b?: string }) => {
      const as = (token?: string) => (token ? { authorization: `Bearer ${token}` } : {});
      return diffRuns(await exportFor(ctx, `run:${a}`, as(tokens.a)), await exportFor(ctx, `run:${b}`, as(tokens.b)));
    },
  };
  const handler = statelessMcpHandler(
    () => buildMcpServer(base, deps),
    (e) => app.log.debug({ err: e }, 'mcp'),
  );
  app.addHook('preClose', async () => {
    await handler.close();
  });
  // Ask the running server which revisions it negotiates (server/discover for the modern ones,
  // initialize for the 2024-2025 ones), so the card says exactly that.
  const config = withServedVersions(base, [
    ...(await discoverVersions(handler.fetch, base.endpoint)),
    ...(await initializeVersions(handler.fetch, base.endpoint)),
  ]);
  // DNS-rebinding defence: browsers send Origin; only our own origin and localhost may drive /mcp.
  const allowedOrigins = [...new Set([new URL(ctx.config.baseUrl).hostname, ...localhostAllowedOrigins()])];

  if (userEndpoint)
    mcpUserRoutes(app, ctx, { config, allowedOrigins, startFlow: deps.startFlow, controlRun: deps.controlRun });

  serveMcp(app, {
    url: '/mcp',
    summary:
      'MCP endpoint (streamable HTTP), open and read-only: the catalog, flow descriptions, decode_jwt, streams, machines and Shared Signals readers',
    baseUrl: ctx.config.baseUrl,
    allowedOrigins,
    handler,
  });

  // Read cross-origin: the shared discovery CORS gives both their header and preflight (discovery-cors.ts).
  const discoveryDocument = (path: string, summary: string, body: string, type: string) => {
    app.get(path, { schema: { summary, tags: ['discovery'] } }, (request, reply) =>
      sendDocument(request, reply, body, type),
    );
  };
  discoveryDocument(
    '/mcp/server-card',
    'MCP server card',
    JSON.stringify(serverCard(config)),
    'application/mcp-server-card+json',
  );
  discoveryDocument(
    '/.well-known/ai-catalog.json',
    'AI catalog: the MCP servers of this deployment',
    JSON.stringify(aiCatalog(config)),
    'application/ai-catalog+json',
  );
}
