import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
let card: any;
let aiCatalog: any;
beforeAll(async () => {
  server = await startMainServer();
  card = await (await fetch(`${server.url}/mcp/server-card`)).json();
  aiCatalog = await (await fetch(`${server.url}/.well-known/ai-catalog.json`)).json();
});
afterAll(async () => {
  await server.close();
});

// Issue 45 item 2: the specification's `/mcp` has read-only tools; none of them starts or steps anything.
const TOOLS = [
  'decode_jwt',
  'decode_saml',
  'describe_protocol_flow',
  'diff_runs',
  'export_stream',
  'get_machine',
  'list_protocol_flows',
  'list_protocols',
  'list_saml_service_providers',
  'list_scim_resources',
  'read_scim_resource',
  'read_ssf_receiver',
  'read_ssf_stream',
];

async function exercise(client: { listTools(): Promise<any>; callTool(p: any): Promise<any> }) {
  const tools = await client.listTools();
  expect(tools.tools.map((t: any) => t.name).sort()).toEqual(TOOLS);
  for (const t of tools.tools) {
    expect(t.inputSchema.type).toBe('object');
    expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    expect(t.annotations?.openWorldHint, t.name).toBe(false);
  }
  const protocols = await client.callTool({ name: 'list_protocols', arguments: { query: 'pkce' } });
  expect(protocols.structuredContent.protocols.map((p: any) => p.id)).toEqual(['oauth2']);
  const flows = await client.callTool({ name: 'list_protocol_flows', arguments: { protocolId: 'oauth2' } });
  expect(flows.structuredContent.flows.find((f: any) => f.id === 'authorization-code-pkce').executable).toBe(true);
  const described = await client.callTool({
    name: 'describe_protocol_flow',
    arguments: { protocolId: 'agentauth', flowId: 'register-and-claim' },
  });
  expect(described.structuredContent.steps[1]).toMatchObject({ order: 2, spec_ref: 'RFC 7523 §2.1' });
  const missing = await client.callTool({ name: 'list_protocol_flows', arguments: { protocolId: 'nope' } });
  expect(missing.isError).toBe(true);
  const reg = (await (await fetch(`${server.url}/agentauth/identity`, json({ type: 'anonymous' }))).json()) as any;
  const decoded = await client.callTool({ name: 'decode_jwt', arguments: { token: reg.identity_assertion } });
  expect(decoded.structuredContent.signature.verified).toBe(true);
  expect(decoded.structuredContent.payload.sub).toBe(reg.agent_id);
  const bad = await client.callTool({ name: 'decode_jwt', arguments: { token: 'not-a-jwt' } });
  expect(bad.isError).toBe(true);
  // Issue 31: the debugging streams, with the HTTP routes' access rules.
  const run = (await (
    await fetch(`${server.url}/api/protocols/oauth2/demo/client-credentials`, json({}))
  ).json()) as any;
  const exported = await client.callTool({ name: 'export_stream', arguments: { streamId: `run:${run.run_id}` } });
  expect(exported.structuredContent).toMatchObject({ format: 'portico-stream/1', final_state: 'succeeded' });
  const guarded = await client.callTool({ name: 'export_stream', arguments: { streamId: `agent:${reg.agent_id}` } });
  expect(guarded.isError).toBe(true);
  expect(guarded.content[0].text).toMatch(/^not_found/);
  const diff = await client.callTool({ name: 'diff_runs', arguments: { a: run.run_id, b: run.run_id } });
  expect(diff.structuredContent).toMatchObject({ same: true, same_flow: true });
  // Issue 32: a machine as data.
  const machine = await client.callTool({ name: 'get_machine', arguments: { id: 'agent' } });
  expect(machine.structuredContent.definition).toMatchObject({ id: 'agent', initial: 'unregistered' });
  expect(machine.structuredContent.paths.claimed.at(-1)).toEqual({
    event: 'agent.claim_polled',
    target: 'claimed',
    guard: 'pollGrants',
  });
  expect((await client.callTool({ name: 'get_machine', arguments: { id: 'nope' } })).isError).toBe(true);
  // The write tools are not tools of /mcp: a call to one is refused.
  const refused = await client
    .callTool({ name: 'start_flow', arguments: { protocolId: 'oauth2', flowId: 'client-credentials' } })
    .then(
      (r: any) => r.isError,
      (e: Error) => e.message,
    );
  expect(refused === true || /start_flow not found/.test(String(refused))).toBe(true);
}

describe('MCP discovery documents', () => {
  it('the card fits its schema (description <= 100), lists exactly the revisions the endpoint negotiates (server/discover and initialize), and no listChanged is promised', async () => {
    expect(card.description.length).toBeLessThanOrEqual(100);
    expect(aiCatalog.entries[0].description).toBe(card.description);
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const discovered = (
      (await res.json()) as {
        result: { supportedVersions: string[]; capabilities: { tools?: { listChanged?: boolean } } };
      }
    ).result;
    // Issue 30 item 21: every revision the endpoint negotiates, through server/discover or initialize, and no other.
    const agreed: string[] = [];
    for (const version of [
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
      '2024-10-07',
      '2023-01-01',
    ]) {
      const init = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
      const text = await init.text();
      if (JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text).result?.protocolVersion === version) agreed.push(version);
    }
    expect(agreed).toContain('2025-11-25');
    expect(card.remotes[0].supportedProtocolVersions).toEqual(
      [...new Set([...discovered.supportedVersions, ...agreed])].sort().reverse(),
    );
    expect(card.remotes[0].supportedProtocolVersions).toContain('2025-11-25');
    expect(discovered.capabilities.tools?.listChanged ?? false).toBe(false);
  });

  it('both documents are readable cross-origin (GET and the OPTIONS preflight) and never rate limited', async () => {
    const limited = await startMainServer({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      for (const path of ['/mcp/server-card', '/.well-known/ai-catalog.json']) {
        for (let i = 0; i < 4; i++) {
          const res = await fetch(`${limited.url}${path}`, { headers: { origin: 'https://agent.example' } });
          expect(res.status).toBe(200);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
        }
        const preflight = await fetch(`${limited.url}${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
        });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
        expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
      }
    } finally {
      await limited.close();
    }
  });
});

describe('MCP clients against /mcp', () => {
  it('SDK v2 client on the 2026-07-28 revision (server/discover): lists and calls every tool; its view of the server equals the card and the AI catalog', async () => {
    const client = new Client(
      { name: 'portico-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const info = client.getServerVersion()!;
    expect(info.name).toBe(card.name);
    expect(info.version).toBe(card.version);
    expect(card.remotes[0]).toMatchObject({ type: 'streamable-http', url: `${server.url}/mcp` });
    const negotiated = client.getNegotiatedProtocolVersion();
    expect(negotiated).toBe('2026-07-28');
    expect(card.remotes[0].supportedProtocolVersions).toContain(negotiated);
    expect(aiCatalog.entries[0]).toMatchObject({
      identifier: card.name,
      type: 'application/mcp-server-card+json',
      url: `${server.url}/mcp/server-card`,
    });
    await exercise(client);
    await client.close();
  });

  it('SDK v2 client without negotiation (2025 initialize) gets the same server', async () => {
    const client = new Client({ name: 'portico-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    expect(client.getServerVersion()).toMatchObject({ name: card.name, version: card.version });
    // 2025-era revisions are negotiated through initialize; the card lists what server/discover reports.
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(client.getNegotiatedProtocolVersion());
    await exercise(client);
    await client.close();
  });

  it('SDK 1.x client (initialize handshake of an older revision) gets the same server and tools', async () => {
    const client = new V1Client({ name: 'portico-test-v1', version: '1.0.0' });
    const transport = new V1Transport(new URL(`${server.url}/mcp`));
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: card.name, version: card.version });
    expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(transport.protocolVersion);
    await exercise(client as any);
    await client.close();
  });

  it('answers malformed JSON-RPC with JSON-RPC errors (never a 5xx) and refuses foreign browser origins', async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      });
    const parse = await post('{not json');
    expect(parse.status).toBeLessThan(500);
    expect((await parse.json()).error.code).toBe(-32700);
    for (const body of ['[]', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":1,"method":"nope"}', '42']) {
      const res = await post(body);
      expect(res.status).toBeLessThan(500);
    }
    const evil = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect((await fetch(`${server.url}/.well-known/mcp/server-card.json`)).status).toBe(404);
  });
});
