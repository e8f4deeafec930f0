import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 35: a stream's history is its events: exported to its owner only (the push header never in it),
// and both ends read through MCP tools.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

describe('reading SSF streams and receivers', () => {
  it('exports a stream to its owner only, without its push header, and reads both ends over MCP', async () => {
    const bearer = await ssfToken(server);
    const receiver = (await exchange(server.url, '/ssf/receivers', json({ audience: 'machine-client' }))).body;
    const { stream_id } = (
      await exchange(
        server.url,
        '/ssf/streams',
        json(
          {
            delivery: {
              method: 'urn:ietf:rfc:8935',
              endpoint_url: receiver.endpoint_url,
              authorization_header: receiver.authorization_header,
            },
          },
          { authorization: `Bearer ${bearer}` },
        ),
      )
    ).body;
    const exported = await exchange(server.url, `/api/streams/ssf-stream:${stream_id}/export`, {
      method: 'GET',
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(exported.status).toBe(200);
    expect(exported.body.events[0].type).toBe('ssf.stream_created');
    expect(JSON.stringify(exported.body)).not.toContain(receiver.authorization_header.split(' ')[1]);
    expect(JSON.stringify(exported.body)).not.toContain('authorization_header_sealed');
    expect((await exchange(server.url, `/api/streams/ssf-stream:${stream_id}/export`, { method: 'GET' })).status).toBe(
      404,
    );
    expect(
      (await exchange(server.url, `/api/streams/ssf-receiver:${receiver.receiver_id}/export`, { method: 'GET' }))
        .status,
    ).toBe(200);

    const client = new Client({ name: 'portico-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
      }),
    );
    const stream = await client.callTool({ name: 'read_ssf_stream', arguments: { streamId: stream_id } });
    expect(stream.structuredContent).toMatchObject({
      stream_id,
      status: 'enabled',
      delivery: { method: 'urn:ietf:rfc:8935' },
    });
    const read = await client.callTool({ name: 'read_ssf_receiver', arguments: { receiverId: receiver.receiver_id } });
    expect(read.structuredContent).toMatchObject({
      receiver_id: receiver.receiver_id,
      audience: 'machine-client',
      received: [],
    });
    const missing = await client.callTool({ name: 'read_ssf_receiver', arguments: { receiverId: 'nope' } });
    expect(missing.isError).toBe(true);
    await client.close();

    const anonymous = new Client({ name: 'portico-test', version: '1.0.0' });
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    expect((await anonymous.callTool({ name: 'read_ssf_stream', arguments: { streamId: stream_id } })).isError).toBe(
      true,
    );
    await anonymous.close();
  });
});
