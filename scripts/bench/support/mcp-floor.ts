import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { statelessMcpHandler } from '../../../adapters/http/mcp/server-pool.ts';
import { opsPerSecond } from '../types.ts';

const REVISION = '2026-07-28';
const EMPTY_IN = fromJsonSchema<Record<string, never>>({ type: 'object', properties: {}, additionalProperties: false });
const OK_OUT = fromJsonSchema({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] });

/**
 * The SDK's own cost per stateless `tools/call`, in process: no HTTP, no token, a tool that answers
 * `{ok: true}` at once, servers pooled as our endpoints have them. What a call on
 * `/mcp` can never cost less than (docs/mcp.md, "Performance").
 */
export async function sdkCallsPerSecond(): Promise<number> {
  // The same handler factory the endpoints use: pooled servers.
  const handler = statelessMcpHandler(
    () => {
      const server = new McpServer({ name: 'floor', version: '1' });
      server.registerTool('ok', { inputSchema: EMPTY_IN, outputSchema: OK_OUT }, async () => ({
        content: [{ type: 'text', text: '{"ok":true}' }],
        structuredContent: { ok: true },
      }));
      return server;
    },
    () => undefined,
  );
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': REVISION,
    'mcp-method': 'tools/call',
    'mcp-name': 'ok',
  };
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'ok',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const call = async () => {
    const response = await handler.fetch(new Request('http://floor/mcp', { method: 'POST', headers }), {
      parsedBody: body,
    });
    const text = await response.text();
    if (!text.includes('"ok":true')) throw new Error(`the floor call failed: ${text.slice(0, 200)}`);
  };
  try {
    return await opsPerSecond(call, 2000);
  } finally {
    await handler.close();
  }
}
