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

const START_IN = fromJsonSchema<{
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
        'Run against your own authorization server: {issuer, client_id, client_secret?, scope?, token_endpoint_auth_method?}',
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
const fieldChanges = { type: 'object', additionalProperties: { type: ['string', 'null'], maxLength: 4096 } };
const STEP_IN = fromJsonSchema<{ runId: string; runToken: string; edit?: RequestEdit }>({
  type: 'object',
  properties: {
    runId: str('The run_id start_flow answered'),
    runToken: str('The run_token start_flow answered in step mode'),
    edit: {
      type: 'object',
      description: 'Changes to the next request first: {query, form, json, headers}, each {name: value}; null removes',
      properties: { query: fieldChanges, form: fieldChanges, headers: fieldChanges, json: { type: 'object' } },
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

/** `start_flow`, `step_run` and `continue_run`: the flow runner and step mode (docs/flows.md). */
export function registerFlowTools(server: McpServer, deps: FlowToolDeps): void {
  server.registerTool(
    'start_flow',
    {
      title: 'Start a protocol flow',
      description:
        'Runs a catalog flow for real against this sandbox and returns every captured exchange. With mode "step" the run pauses before each request: the answer shows next_request and a run_token for step_run and continue_run.',
      inputSchema: START_IN,
      outputSchema: RUN_OUT,
      annotations: RUNS_A_FLOW,
    },
    ({ protocolId, flowId, mode, options, target }) =>
      answer(() =>
        deps.startFlow(protocolId, flowId, { ...options, ...(mode ? { mode } : {}), ...(target ? { target } : {}) }),
      ),
  );
  server.registerTool(
    'step_run',
    {
      title: 'Send the next request of a stepped run',
      description:
        'Sends the request a paused run shows as next_request, edited first if asked (e.g. a wrong code_verifier, state removed), and pauses before the next one.',
      inputSchema: STEP_IN,
      outputSchema: RUN_OUT,
      annotations: RUNS_A_FLOW,
    },
    ({ runId, runToken, edit }) => answer(() => deps.controlRun(runId, runToken, { kind: 'step', edit })),
  );
  server.registerTool(
    'continue_run',
    {
      title: 'Run a stepped run to its end',
      description: 'Lets a paused run go on to its end without pausing again.',
      inputSchema: CONTINUE_IN,
      outputSchema: RUN_OUT,
      annotations: RUNS_A_FLOW,
    },
    ({ runId, runToken }) => answer(() => deps.controlRun(runId, runToken, { kind: 'continue' })),
  );
}
