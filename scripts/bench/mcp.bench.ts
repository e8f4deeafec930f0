import autocannon from 'autocannon';
import { rmSync } from 'node:fs';
import { startChildServer } from '../support/child-server.ts';
import { sdkCallsPerSecond } from './support/mcp-floor.ts';
import type { Bench } from './types.ts';

const REVISION = '2026-07-28';
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** A registered client's client_credentials tokens: one bound to `/mcp/user`, one for the demo resource. */
async function clientTokens(base: string): Promise<{ user: string; resource: string }> {
  const registered = (await (
    await post(`${base}/oauth2/register`, { grant_types: ['client_credentials'], scope: 'mcp:read' })
  ).json()) as { client_id: string; client_secret: string };
  const token = async (resource: string) => {
    const res = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read', resource }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  return { user: await token(`${base}/mcp/user`), resource: await token(`${base}/oauth2/resource`) };
}

/**
 * `tools/call` on both MCP endpoints against the same work on a plain route (POST
 * /api/lookingglass/decode for decode_jwt at `/mcp`; the token check plus a small answer, as
 * whoami gives at `/mcp/user`, against the demo resource), all over HTTP to one server in one run,
 * each warmed up first so the JIT has seen it.
 */
const bench: Bench = async () => {
  // /mcp/user and the dynamic client it registers are extensions, off by default (decisions §11): the
  // bench turns both on to measure them.
  const server = await startChildServer({ env: { MCP_USER_ENDPOINT: 'true', DYNAMIC_CLIENTS: 'true' } });
  try {
    const reg = (await (await post(`${server.url}/agentauth/identity`, { type: 'anonymous' })).json()) as {
      identity_assertion: string;
    };
    const token = reg.identity_assertion;
    const tokens = await clientTokens(server.url);
    const mcpHeaders = (name: string) => ({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    });
    // A 2026-revision request is self-contained: the protocol envelope travels in _meta (stateless).
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const call = (name: string, args: object) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args, _meta: envelope },
      });
    const loads = {
      mcp: { url: `${server.url}/mcp`, headers: mcpHeaders('decode_jwt'), body: call('decode_jwt', { token }) },
      decode: {
        url: `${server.url}/api/lookingglass/decode`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      },
      user: {
        url: `${server.url}/mcp/user`,
        headers: { ...mcpHeaders('whoami'), authorization: `Bearer ${tokens.user}` },
        body: call('whoami', {}),
      },
      resource: { url: `${server.url}/oauth2/resource`, headers: { authorization: `Bearer ${tokens.resource}` } },
    };
    const check = await (
      await fetch(loads.mcp.url, { method: 'POST', headers: loads.mcp.headers, body: loads.mcp.body })
    ).text();
    if (!check.includes('"verified":true'))
      throw new Error(`the MCP decode_jwt call did not verify: ${check.slice(0, 300)}`);
    const me = await (
      await fetch(loads.user.url, { method: 'POST', headers: loads.user.headers, body: loads.user.body })
    ).text();
    if (!me.includes('"aud"')) throw new Error(`whoami at /mcp/user failed: ${me.slice(0, 300)}`);
    const measure = async (load: { url: string; headers: Record<string, string>; body?: string }, duration: number) =>
      autocannon({ ...load, method: load.body ? 'POST' : 'GET', connections: 16, duration });
    for (const load of Object.values(loads)) await measure(load, 2);
    const results: Record<string, Awaited<ReturnType<typeof autocannon>>> = {};
    for (const [name, load] of Object.entries(loads)) results[name] = await measure(load, 5);
    for (const [name, r] of Object.entries(results))
      if (r.non2xx > 0) throw new Error(`non-2xx on ${name}: ${r.non2xx}`);
    const rate = (name: string) => results[name].requests.average;
    // The SDK alone, in this process: its µs per call against the plain route's whole µs per request.
    const floor = await sdkCallsPerSecond();
    return [
      { name: 'plain route: POST /api/lookingglass/decode', value: rate('decode'), unit: 'req/s' },
      {
        name: '/mcp tools/call decode_jwt (SDK v2, stateless)',
        value: rate('mcp'),
        unit: 'req/s',
        ratio: { against: 'plain route', value: rate('mcp') / rate('decode'), target: '>= 0.5' },
      },
      { name: 'plain protected route: GET /oauth2/resource (token check)', value: rate('resource'), unit: 'req/s' },
      {
        name: '/mcp/user tools/call whoami (token check + SDK v2)',
        value: rate('user'),
        unit: 'req/s',
        ratio: { against: 'plain protected route', value: rate('user') / rate('resource'), target: '>= 0.5' },
      },
      {
        name: 'SDK alone: stateless tools/call in process, trivial tool',
        value: 1e6 / floor,
        unit: 'µs/call',
        note: `the plain route takes ${(1e6 / rate('decode')).toFixed(0)} µs per request in all, over HTTP`,
      },
    ];
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
};

export default bench;
