import { fromJsonSchema, type McpServer } from '@modelcontextprotocol/server';
import type { RunDiff } from '../streams/diff.ts';
import type { StreamExport } from '../streams/export.ts';
import type { StreamCredentials } from '../streams/readers.ts';
import { answer, READ_ONLY, str } from './tool-kit.ts';

export interface StreamToolDeps {
  /** A stream as a caller with these credentials may read it (an OAuthError 404 otherwise). */
  exportStream(streamId: string, credentials: StreamCredentials): Promise<StreamExport>;
  /** Two runs compared; a targeted run needs its run token (`tokens`: each run's, when it has one). */
  diffRuns(a: string, b: string, tokens: { a?: string; b?: string }): Promise<RunDiff>;
}

const RUN_TOKEN = 'The run_token of a run started against your own server (shown once when it started)';
const EXPORT_IN = fromJsonSchema<{
  streamId: string;
  transactionId?: string;
  responseCode?: string;
  runToken?: string;
}>({
  type: 'object',
  properties: {
    streamId: str(
      'run:<id>, agent:<id> (with the agent access token as the request Bearer), issuance:<offer_id>, presentation:<request_id>',
      100,
    ),
    transactionId: str("A presentation's transaction_id (the capability that reads its result)", 100),
    responseCode: str('The response_code of a HAIP presentation, to include disclosed claims', 200),
    runToken: str(RUN_TOKEN, 100),
  },
  required: ['streamId'],
  additionalProperties: false,
});
const EXPORT_OUT = fromJsonSchema({
  type: 'object',
  properties: {
    format: { type: 'string' },
    stream: { type: 'string' },
    events: { type: 'array' },
    digest: { type: 'string' },
  },
  required: ['format', 'stream', 'events', 'digest'],
});
const DIFF_IN = fromJsonSchema<{ a: string; b: string; runTokenA?: string; runTokenB?: string }>({
  type: 'object',
  properties: {
    a: str('A run id', 100),
    b: str('Another run id (or the same)', 100),
    runTokenA: str(`Run a: ${RUN_TOKEN}`, 100),
    runTokenB: str(`Run b: ${RUN_TOKEN}`, 100),
  },
  required: ['a', 'b'],
  additionalProperties: false,
});
const DIFF_OUT = fromJsonSchema({
  type: 'object',
  properties: { same: { type: 'boolean' }, same_flow: { type: 'boolean' }, exchanges: { type: 'array' } },
  required: ['same', 'same_flow', 'exchanges'],
});

/** `export_stream` and `diff_runs`: the debugging streams, read-only, with the HTTP routes' access rules. */
export function registerStreamTools(server: McpServer, deps: StreamToolDeps): void {
  server.registerTool(
    'export_stream',
    {
      title: 'Export an event stream',
      description:
        'One stream as portico-stream/1: each event with the machine state after it, the machine version and a digest. Readable exactly by who may read the stream elsewhere; anything else is not_found.',
      inputSchema: EXPORT_IN,
      outputSchema: EXPORT_OUT,
      annotations: READ_ONLY,
    },
    async ({ streamId, transactionId, responseCode, runToken }, ctx) => {
      const authorization = runToken
        ? `Bearer ${runToken}`
        : (ctx.http?.req?.headers.get('authorization') ?? undefined);
      return answer(() =>
        deps.exportStream(streamId, {
          ...(authorization ? { authorization } : {}),
          ...(transactionId ? { transactionId } : {}),
          ...(responseCode ? { responseCode } : {}),
        }),
      );
    },
  );

  server.registerTool(
    'diff_runs',
    {
      title: 'Compare two runs',
      description:
        'The first divergence of two runs’ events and their exchanges paired by step, field by field; ids, times, nonces, codes and signatures are listed as volatile, never as differences.',
      inputSchema: DIFF_IN,
      outputSchema: DIFF_OUT,
      annotations: READ_ONLY,
    },
    async ({ a, b, runTokenA, runTokenB }) =>
      answer(() =>
        deps.diffRuns(a, b, { ...(runTokenA ? { a: runTokenA } : {}), ...(runTokenB ? { b: runTokenB } : {}) }),
      ),
  );
}
