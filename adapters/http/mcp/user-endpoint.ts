import type { AuthInfo } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import { DPOP_ALGS } from '../../../services/dpop/proof.ts';
import { FLOW_CLIENT_DOCUMENT_PATH } from '../../../services/flows/runners/mcp.ts';
import type { McpServerConfig } from '../../../services/mcp/config.ts';
import { buildUserMcpServer, type McpCaller, type UserToolDeps } from '../../../services/mcp/user-tools.ts';
import { insufficientScope } from '../../../services/oauth/protected-resources.ts';
import { MCP_READ, MCP_WRITE } from '../../../services/oauth/scopes.ts';
import type { MainContext } from '../main/context.ts';
import { sendDocument } from '../main/documents.ts';
import { statelessMcpHandler } from './server-pool.ts';
import { serveMcp } from './transport.ts';

/** Tools whose call needs more than `mcp:read`: the step-up of the MCP authorization specification. */
const WRITE_TOOLS = new Set(['start_flow', 'step_run', 'continue_run']);

/** Whether a JSON-RPC body (one message or a batch) calls a tool that needs `mcp:write`. */
function callsWriteTool(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const message = m as { method?: unknown; params?: { name?: unknown } } | null;
    return (
      message?.method === 'tools/call' &&
      typeof message.params?.name === 'string' &&
      WRITE_TOOLS.has(message.params.name)
    );
  });
}

/**
 * `/mcp/user`: the MCP endpoint protected by `{base}/oauth2` as the MCP authorization specification
 * says: 401 with the RFC 9728 document's URL, tokens audience-bound to this URL (RFC 8707), Bearer or
 * DPoP, and 403 `insufficient_scope` naming the scopes a tool needs (step-up).
 */
export function mcpUserRoutes(
  app: FastifyInstance,
  ctx: MainContext,
  {
    config,
    allowedOrigins,
    startFlow,
    controlRun,
  }: {
    config: McpServerConfig;
    allowedOrigins: string[];
    startFlow: UserToolDeps['startFlow'];
    controlRun: UserToolDeps['controlRun'];
  },
): void {
  const resource = config.userEndpoint;
  const metadataUrl = config.userResourceMetadata;
  // The composition root builds the guard and the runs when MCP_USER_ENDPOINT=true (graph.ts).
  if (!ctx.mcpUser) throw new Error('the protected MCP endpoint needs its parts (MCP_USER_ENDPOINT=true)');
  const { guard, runs } = ctx.mcpUser;
  const deps: UserToolDeps = {
    startFlow,
    controlRun,
    recordRun: (caller, run) => runs.recordRun(caller, run),
    runsOf: (caller) => runs.runsOf(caller),
  };
  const handler = statelessMcpHandler(
    () => buildUserMcpServer(config, deps),
    (e) => app.log.debug({ err: e }, 'mcp/user'),
  );
  app.addHook('preClose', async () => {
    await handler.close();
  });

  const authorize = async (
    authorization: string | undefined,
    dpop: string | string[] | undefined,
    method: string,
    body: unknown,
  ) => {
    const { claims, scopes, scheme, token } = await guard.admit({ authorization, dpop, method, url: resource });
    if (callsWriteTool(body) && !scopes.includes(MCP_WRITE))
      throw insufficientScope(`${MCP_READ} ${MCP_WRITE}`, {
        scheme: scheme === 'DPoP' ? 'DPoP' : 'Bearer',
        resourceMetadata: metadataUrl,
      });
    const caller: McpCaller = {
      sub: claims.sub,
      clientId: claims.client_id,
      scopes,
      audience: resource,
      expiresAt: claims.exp,
      jti: claims.jti,
      tokenType: scheme === 'DPoP' ? 'DPoP' : 'Bearer',
    };
    const info: AuthInfo = {
      token,
      clientId: claims.client_id,
      scopes,
      expiresAt: claims.exp,
      resource: new URL(resource),
      extra: { caller },
    };
    return info;
  };

  serveMcp(app, {
    url: '/mcp/user',
    summary:
      'MCP endpoint protected by OAuth (MCP authorization specification): whoami, my_runs, start_flow (mcp:write)',
    baseUrl: ctx.config.baseUrl,
    allowedOrigins,
    handler,
    authorize: (request) =>
      authorize(request.headers.authorization, request.headers.dpop, request.method, request.body),
  });

  // RFC 9728 §3: the document sits at the well-known path with the resource's path appended.
  const document = JSON.stringify({
    resource,
    authorization_servers: [config.authorizationServer],
    scopes_supported: [MCP_READ, MCP_WRITE],
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    resource_name: 'Portico MCP tools for signed-in users',
    resource_documentation: `${ctx.config.baseUrl}/docs/api`,
  });
  // The flow runner's own client (catalog flow mcp/authorization) is a Client ID Metadata Document client.
  const flowClientId = `${ctx.config.baseUrl}${FLOW_CLIENT_DOCUMENT_PATH}`;
  const flowClient = JSON.stringify({
    client_id: flowClientId,
    client_name: 'Portico flow runner (MCP authorization)',
    client_uri: ctx.config.baseUrl,
    redirect_uris: [`${ctx.config.baseUrl}/callback`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  app.get(
    FLOW_CLIENT_DOCUMENT_PATH,
    { schema: { summary: 'Client ID Metadata Document of the flow runner’s MCP client', tags: ['discovery'] } },
    (request, reply) => sendDocument(request, reply, flowClient, 'application/json'),
  );
  app.get(
    '/.well-known/oauth-protected-resource/mcp/user',
    {
      schema: { summary: 'Protected resource metadata of the protected MCP endpoint (RFC 9728)', tags: ['discovery'] },
    },
    (request, reply) => sendDocument(request, reply, document, 'application/json'),
  );
}
