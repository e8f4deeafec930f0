import { fromJsonSchema, type McpServer } from '@modelcontextprotocol/server';
import { answer, READ_ONLY, str } from './tool-kit.ts';

export interface SsfToolDeps {
  /** A receiver and its last SETs (the receiver id is the capability, as for its page). */
  ssfReceiver(id: string): Promise<object>;
  /** A stream's configuration, status and queue, for its owner (the request's Bearer token, scope ssf). */
  ssfStream(id: string, authorization: string | undefined): Promise<object>;
}

const RECEIVER_IN = fromJsonSchema<{ receiverId: string }>({
  type: 'object',
  properties: { receiverId: str('A receiver_id from POST /ssf/receivers', 64) },
  required: ['receiverId'],
  additionalProperties: false,
});
const STREAM_IN = fromJsonSchema<{ streamId: string }>({
  type: 'object',
  properties: { streamId: str('A stream_id of POST /ssf/streams (send its owner token as the Bearer)', 64) },
  required: ['streamId'],
  additionalProperties: false,
});
const OBJECT_OUT = fromJsonSchema({ type: 'object' });

/** `read_ssf_receiver` and `read_ssf_stream`: both ends of a Shared Signals stream, read only. */
export function registerSsfTools(server: McpServer, deps: SsfToolDeps): void {
  server.registerTool(
    'read_ssf_receiver',
    {
      title: 'Read a SET receiver',
      description:
        'A Portico SET receiver: the transmitter and audience it trusts and the last 100 SETs pushed to it, decoded, each with its verdict (RFC 8935 err when refused).',
      inputSchema: RECEIVER_IN,
      outputSchema: OBJECT_OUT,
      annotations: READ_ONLY,
    },
    async ({ receiverId }) => answer(() => deps.ssfReceiver(receiverId)),
  );
  server.registerTool(
    'read_ssf_stream',
    {
      title: 'Read a Shared Signals stream',
      description:
        'A stream of the transmitter (SSF 1.0 §8): configuration, status, subjects, the SETs queued and not yet acknowledged, the receiver errors recorded. Only its owner may read it: send the client_credentials token (scope ssf) as the Bearer.',
      inputSchema: STREAM_IN,
      outputSchema: OBJECT_OUT,
      annotations: READ_ONLY,
    },
    async ({ streamId }, ctx) =>
      answer(() => deps.ssfStream(streamId, ctx.http?.req?.headers.get('authorization') ?? undefined)),
  );
}
