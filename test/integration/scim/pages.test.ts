import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, startMainServer, type TestServer } from '../../support/main-server.ts';
import { scimClient, scimToken } from '../../support/scim.ts';

// Issue 48: a SCIM page per tenant, listing its resources and their streams, with a markdown twin,
// linked from the protocol's page.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

describe('SCIM pages', () => {
  it("links the tenants from the protocol's page, and lists a demo tenant's resources with their streams", async () => {
    const protocol = await (await fetch(`${server.url}/protocol/scim`)).text();
    expect(protocol).toContain('href="/scim"');
    const index = await (await fetch(`${server.url}/scim`)).text();
    expect(index).toContain('href="/scim/tenants/machine-client"');
    const made = await scimClient(server.url, await scimToken(server)).createUser('page.visible');
    const page = await fetch(`${server.url}/scim/tenants/machine-client`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('page.visible');
    expect(html).toContain(`scim-user:machine-client:${made.id}`);
    expect(html).toContain('Release assistant');
    const twin = await (
      await fetch(`${server.url}/scim/tenants/machine-client`, { headers: { accept: 'text/markdown' } })
    ).text();
    expect(twin).toMatch(/^# SCIM tenant machine-client/m);
    expect(twin).toContain(`scim-user:machine-client:${made.id}`);
  });

  it('opens any other tenant only with its token', async () => {
    expect((await fetch(`${server.url}/scim/tenants/someone-else`)).status).toBe(404);
    const token = await scimToken(server, 'demo-app');
    const page = await fetch(`${server.url}/scim/tenants`, form({ token }));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('SCIM tenant demo-app');
    const refused = await fetch(`${server.url}/scim/tenants`, form({ token: 'not-a-token' }));
    expect(refused.status).toBe(401);
  });
});
