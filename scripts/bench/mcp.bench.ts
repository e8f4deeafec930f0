import autocannon from 'autocannon';
import { rmSync } from 'node:fs';
import { startChildServer } from '../support/child-server.ts';
import type { Bench } from './types.ts';

/**
 * `/mcp` tools/call decode_jwt against the same work on a plain route (POST /api/lookingglass/decode),
 * both over HTTP to the same server in the same run.
 */
const bench: Bench = async () => {
  const server = await startChildServer();
  try {
    const reg = (await (
      await fetch(`${server.url}/agentauth/identity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"type":"anonymous"}',
      })
    ).json()) as { identity_assertion: string };
    const token = reg.identity_assertion;
    const REVISION = '2026-07-28';
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': 'decode_jwt',
    };
    // A 2026-revision request is self-contained: the protocol envelope travels in _meta (stateless).
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'decode_jwt', arguments: { token }, _meta: envelope },
    });
    const check = await (await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: call })).text();
    if (!check.includes('"verified":true'))
      throw new Error(`the MCP decode_jwt call did not verify: ${check.slice(0, 300)}`);
    const mcp = await autocannon({
      url: `${server.url}/mcp`,
      method: 'POST',
      headers,
      body: call,
      connections: 16,
      duration: 5,
    });
    const plain = await autocannon({
      url: `${server.url}/api/lookingglass/decode`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
      connections: 16,
      duration: 5,
    });
    if (mcp.non2xx > 0 || plain.non2xx > 0) throw new Error(`non-2xx: mcp ${mcp.non2xx}, plain ${plain.non2xx}`);
    return [
      { name: 'plain route: POST /api/lookingglass/decode', value: plain.requests.average, unit: 'req/s' },
      {
        name: '/mcp tools/call decode_jwt (SDK v2, stateless)',
        value: mcp.requests.average,
        unit: 'req/s',
        ratio: { against: 'plain route', value: mcp.requests.average / plain.requests.average, target: '>= 0.25' },
      },
    ];
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
};

export default bench;
