import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import type { RunView } from '../flows/runs.ts';
import type { TokenRun } from '../../machines/token-runs.ts';
import { oauthError } from '../errors.ts';
import { MCP_WRITE } from '../oauth/scopes.ts';
import type { McpServerConfig } from './config.ts';
import { RUN_OUT, START_FLOW_IN, registerRunControls, type FlowToolDeps } from './flow-tools.ts';
import { READ_ONLY, answer } from './tool-kit.ts';

/** Who called, as the protected endpoint verified it from the access token. */
export interface McpCaller {
  sub: string;
  clientId: string;
  scopes: string[];
  audience: string;
  /** Epoch seconds. */
  expiresAt: number;
  jti: string;
  tokenType: 'Bearer' | 'DPoP';
}

export interface UserToolDeps extends Pick<FlowToolDeps, 'controlRun'> {
  /** Starts a run for `caller` (the limits per caller, such as targeted runs at once, are its own). */
  startFlow(protocol: string, flow: string, options: Record<string, unknown>, caller: string): Promise<RunView>;
  recordRun(caller: McpCaller, run: Omit<TokenRun, 'at'>): Promise<void>;
  runsOf(caller: McpCaller): Promise<Array<TokenRun & { status?: string }>>;
}

const NO_INPUT = fromJsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });
const WHOAMI_OUT = fromJsonSchema({
  type: 'object',
  properties: {
    sub: { type: 'string' },
    client_id: { type: 'string' },
    scope: { type: 'string' },
    aud: { type: 'string' },
    exp: { type: 'integer' },
  },
  required: ['sub', 'client_id', 'scope', 'aud', 'exp'],
});
const RUNS_OUT = fromJsonSchema({
  type: 'object',
  properties: { runs: { type: 'array' } },
  required: ['runs'],
});

/** The verified caller the endpoint put into the request's authInfo; no tool runs without one. */
function callerOf(ctx: { http?: { authInfo?: { extra?: Record<string, unknown> } } }): McpCaller {
  const caller = ctx.http?.authInfo?.extra?.caller as McpCaller | undefined;
  if (!caller) throw oauthError('invalid_token', 'This tool needs the caller’s verified access token');
  return caller;
}

/**
 * The tools of the protected MCP endpoint (`/mcp/user`): who the token says its caller is, the runs
 * this token started, and starting a run, which needs `mcp:write`. The caller comes with each request
 * (the endpoint verified the token), so one server serves every caller.
 */
export function buildUserMcpServer(config: McpServerConfig, deps: UserToolDeps): McpServer {
  const server = new McpServer(
    { name: config.name, version: config.version, title: config.title, description: config.description },
    { instructions: config.instructions },
  );
  server.registerTool(
    'whoami',
    {
      title: 'Who this access token speaks for',
      description: 'The subject, client, scopes, audience and expiry of the access token this call carried.',
      inputSchema: NO_INPUT,
      outputSchema: WHOAMI_OUT,
      annotations: READ_ONLY,
    },
    (_args, ctx) =>
      answer(async () => {
        const caller = callerOf(ctx);
        return {
          sub: caller.sub,
          client_id: caller.clientId,
          scope: caller.scopes.join(' '),
          aud: caller.audience,
          exp: caller.expiresAt,
          token_type: caller.tokenType,
        };
      }),
  );
  server.registerTool(
    'my_runs',
    {
      title: 'Runs started with this token',
      description: 'The flow runs start_flow started with this access token, newest last, with their status.',
      inputSchema: NO_INPUT,
      outputSchema: RUNS_OUT,
      annotations: READ_ONLY,
    },
    (_args, ctx) => answer(async () => ({ runs: await deps.runsOf(callerOf(ctx)) })),
  );
  server.registerTool(
    'start_flow',
    {
      title: 'Start a protocol flow as this user',
      description:
        'Runs a catalog flow for real, recorded as this token’s (my_runs lists it). With mode "step" the run pauses before each request: the answer shows next_request and a run_token for step_run and continue_run. Needs the mcp:write scope.',
      inputSchema: START_FLOW_IN,
      outputSchema: RUN_OUT,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ protocolId, flowId, mode, options, target }, ctx) =>
      answer(async () => {
        const caller = callerOf(ctx);
        // The endpoint asks for step-up before this is reached; this holds should it ever be called without.
        if (!caller.scopes.includes(MCP_WRITE)) throw oauthError('insufficient_scope', 'start_flow needs mcp:write');
        const run = await deps.startFlow(
          protocolId,
          flowId,
          { ...options, ...(mode ? { mode } : {}), ...(target ? { target } : {}) },
          // Each MCP caller is its own client for the per-client limits: its subject at its client.
          `mcp:${caller.clientId}:${caller.sub}`,
        );
        await deps.recordRun(caller, { runId: run.run_id, protocol: protocolId, flow: flowId });
        return run;
      }),
  );
  registerRunControls(server, deps, (ctx) => {
    if (!callerOf(ctx as Parameters<typeof callerOf>[0]).scopes.includes(MCP_WRITE))
      throw oauthError('insufficient_scope', 'step_run and continue_run need mcp:write');
  });
  return server;
}
