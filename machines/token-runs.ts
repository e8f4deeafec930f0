import { setup } from 'xstate';
import { updateActions, type ContextUpdate } from './updates.ts';

/**
 * The flow runs started through the protected MCP endpoint with one access token, stream
 * `token-runs:<token jti>`: what its `my_runs` tool lists (docs/mcp.md).
 */
export interface TokenRun {
  runId: string;
  protocol: string;
  flow: string;
  at: number;
}

export type TokenRunsEvent = {
  type: 'token_run.started';
  at: number;
  runId: string;
  protocol: string;
  flow: string;
  sub: string;
  clientId: string;
};

export interface TokenRunsContext {
  sub?: string;
  clientId?: string;
  runs: TokenRun[];
}

type E<T extends TokenRunsEvent['type']> = Extract<TokenRunsEvent, { type: T }>;

/** The machine's context updates: pure, named, importable on their own (time arrives in events). */
export const tokenRunsUpdates = {
  /** The last 100 runs are kept. */
  addRun: (context: TokenRunsContext, e: E<'token_run.started'>) => ({
    sub: e.sub,
    clientId: e.clientId,
    runs: [...context.runs, { runId: e.runId, protocol: e.protocol, flow: e.flow, at: e.at }].slice(-100),
  }),
} satisfies Record<string, ContextUpdate<TokenRunsContext>>;

export const tokenRunsMachine = setup({
  types: { context: {} as TokenRunsContext, events: {} as TokenRunsEvent },
  actions: updateActions<TokenRunsContext, TokenRunsEvent, typeof tokenRunsUpdates>(tokenRunsUpdates),
}).createMachine({
  id: 'tokenRuns',
  description:
    'The flow runs one access token started at the protected MCP endpoint (MCP authorization, RFC 9728 §2), stream token-runs:<token jti>: what its my_runs tool lists.',
  initial: 'listing',
  context: { runs: [] },
  states: {
    listing: {
      description: 'Runs are added as start_flow starts them.',
      on: {
        'token_run.started': {
          description:
            'start_flow at /mcp/user with a token holding mcp:write (RFC 6750 §3.1 step-up otherwise) started a run.',
          actions: 'addRun',
        },
      },
    },
  },
});
