import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { scimClient, scimToken } from '../../support/scim.ts';

// Issue 48: the SCIM service provider, read through /mcp's read-only tools with the tenant's token.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const connect = async (headers: Record<string, string> = {}) => {
  const client = new Client({ name: 'portico-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  return client;
};

describe('SCIM through /mcp', () => {
  it("lists and reads the caller's tenant, read-only, and refuses a call without its token", async () => {
    const token = await scimToken(server);
    const made = await scimClient(server.url, token).createUser('mcp.reader');
    const client = await connect({ authorization: `Bearer ${token}` });
    const { tools } = await client.listTools();
    for (const name of ['list_scim_resources', 'read_scim_resource'])
      expect(tools.find((t) => t.name === name)?.annotations).toMatchObject({ readOnlyHint: true });
    const listed = await client.callTool({
      name: 'list_scim_resources',
      arguments: { resourceType: 'User', filter: 'userName sw "mcp."' },
    });
    expect((listed.structuredContent as any).Resources.map((u: any) => u.id)).toEqual([made.id]);
    const read = await client.callTool({
      name: 'read_scim_resource',
      arguments: { resourceType: 'User', id: made.id },
    });
    expect(read.structuredContent).toMatchObject({ userName: 'mcp.reader', meta: { version: 'W/"1"' } });
    const badFilter = await client.callTool({
      name: 'list_scim_resources',
      arguments: { resourceType: 'User', filter: 'x eq' },
    });
    expect(badFilter.isError).toBe(true);
    const missing = await client.callTool({
      name: 'read_scim_resource',
      arguments: { resourceType: 'Group', id: made.id },
    });
    expect(missing.isError).toBe(true);

    const anonymous = await connect();
    const refused = await anonymous.callTool({ name: 'list_scim_resources', arguments: { resourceType: 'User' } });
    expect(refused.isError).toBe(true);
    expect((refused.content as any)[0].text).toMatch(/^invalid_token/);
  });
});
