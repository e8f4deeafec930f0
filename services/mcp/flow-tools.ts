import { fromJsonSchema, type McpServer } from '@modelcontextprotocol/server';
import type { RequestEdit } from '../flows/request-edit.ts';
import type { RunView } from '../flows/runs.ts';
import { answer, str } from './tool-kit.ts';

export interface FlowToolDeps {
  startFlow(
    protocol: string,
    flow: string,
    options: Record<string, unknown>,
  ): Promise<RunView & { run_token?: string }>;
  controlRun(
    id: string,
    runToken: string,
    command: { kind: 'step'; edit?: RequestEdit } | { kind: 'continue' | 'cancel' },
  ): Promise<RunView>;
}

/** Runs a flow against this origin: it writes a run stream, so it is not read-only, but it never leaves the sandbox. */
const RUNS_A_FLOW = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** `start_flow`'s input: a flow, its options, step mode, and a target of the caller's own. */
export const START_FLOW_IN = fromJsonSchema<{
  protocolId: string;
  flowId: string;
  mode?: 'run' | 'step';
  options?: Record<string, string>;
  target?: Record<string, string>;
}>({
  type: 'object',
  properties: {
    protocolId: str('A protocol id from list_protocols'),
    flowId: str('A flow id from list_protocol_flows (executable ones)'),
    mode: {
      type: 'string',
      enum: ['run', 'step'],
      description: 'run (default): to the end. step: pause before every request; the answer holds run_token.',
    },
    options: {
      type: 'object',
      additionalProperties: { type: 'string', maxLength: 200 },
      description: 'The flow options of describe_protocol_flow, e.g. {"client_auth": "private_key_jwt"}',
    },
    target: {
      type: 'object',
      description:
        'Run against your own authorization server: {issuer, client_id, client_secret?, scope?, token_endpoint_auth_method?}. A server on this machine needs Portico started with OUTBOUND_ALLOW_LOOPBACK=true.',
      properties: {
        issuer: str('Its issuer URL', 500),
        client_id: str('A client registered there'),
        client_secret: str("That client's secret (never logged whole)", 500),
        scope: str('The scope to ask for', 500),
        token_endpoint_auth_method: { type: 'string', enum: ['client_secret_basic', 'client_secret_post', 'none'] },
      },
      required: ['issuer', 'client_id'],
      additionalProperties: false,
    },
  },
  required: ['protocolId', 'flowId'],
  additionalProperties: false,
});
/** A run as start_flow and the step tools answer it. */
export const RUN_OUT = fromJsonSchema({
  type: 'object',
  properties: { run_id: { type: 'string' }, status: { type: 'string' } },
  required: ['run_id', 'status'],
});
// One type per value (portable across MCP clients): values to set here, names to remove in `remove`.
const fieldChanges = { type: 'object', additionalProperties: { type: 'string', maxLength: 4096 } };
const fieldNames = { type: 'array', items: { type: 'string', maxLength: 100 }, maxItems: 50 };
type Part = 'query' | 'form' | 'headers' | 'json';
const STEP_IN = fromJsonSchema<{
  runId: string;
  runToken: string;
  edit?: RequestEdit;
  remove?: Partial<Record<Part, string[]>>;
}>({
  type: 'object',
  properties: {
    runId: str('The run_id start_flow answered'),
    runToken: str('The run_token start_flow answered in step mode'),
    edit: {
      type: 'object',
      description: 'Changes to the next request first: {query, form, json, headers}, each {name: value}',
      properties: { query: fieldChanges, form: fieldChanges, headers: fieldChanges, json: { type: 'object' } },
      additionalProperties: false,
    },
    remove: {
      type: 'object',
      description: 'Fields to remove from the next request first: {query, form, json, headers}, each [name, ...]',
      properties: { query: fieldNames, form: fieldNames, headers: fieldNames, json: fieldNames },
      additionalProperties: false,
    },
  },
  required: ['runId', 'runToken'],
  additionalProperties: false,
});
const CONTINUE_IN = fromJsonSchema<{ runId: string; runToken: string }>({
  type: 'object',
  properties: { runId: str('The run_id'), runToken: str('The run_token of the stepped run') },
  required: ['runId', 'runToken'],
  additionalProperties: false,
});

/** The tool's two fields as one RequestEdit: a removal is a `null` change (docs/flows.md). */
function withRemovals(edit: RequestEdit | undefined, remove: Partial<Record<Part, string[]>> | undefined) {
  if (!remove) return edit;
  const merged: RequestEdit = { ...edit };
  for (const part of ['query', 'form', 'headers', 'json'] as const) {
    const names = remove[part];
    if (!names?.length) continue;
    const changes = Object.assign(Object.create(null) as Record<string, unknown>, merged[part]);
    for (const name of names) changes[name] = null;
    merged[part] = changes;
  }
  return merged;
}

/**
 * `step_run` and `continue_run`: step mode (docs/flows.md). They act, so they live on `/mcp/user`
 * alone (the specification's `/mcp` has read-only tools); `authorize` refuses a caller without `mcp:write`.
 */
export function registerRunControls(
  server: McpServer,
  deps: Pick<FlowToolDeps, 'controlRun'>,
  authorize: (ctx: unknown) => void,
): void {
  server.registerTool(
    'step_run',
    {
      title: 'Send the next request of a stepped run',
      description:
        'Sends the request a paused run shows as next_request, edited first if asked (e.g. a wrong code_verifier, state removed), and pauses before the next one. Needs the mcp:write scope.',
      inputSchema: STEP_IN,
      outputSchema: RUN_OUT,
      annotations: RUNS_A_FLOW,
    },
    ({ runId, runToken, edit, remove }, ctx) =>
      answer(() => {
        authorize(ctx);
        return deps.controlRun(runId, runToken, { kind: 'step', edit: withRemovals(edit, remove) });
      }),
  );
  server.registerTool(
    'continue_run',
    {
      title: 'Run a stepped run to its end',
      description: 'Lets a paused run go on to its end without pausing again. Needs the mcp:write scope.',
      inputSchema: CONTINUE_IN,
      outputSchema: RUN_OUT,
      annotations: RUNS_A_FLOW,
    },
    ({ runId, runToken }, ctx) =>
      answer(() => {
        authorize(ctx);
        return deps.controlRun(runId, runToken, { kind: 'continue' });
      }),
  );
}
