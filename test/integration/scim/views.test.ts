import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { PATCH_OP, scimClient, scimToken, USER } from '../../support/scim.ts';

// Issue 48: the looking glass decodes a SCIM resource, a PATCH request (what each operation changes) and a
// filter (its AST); a SCIM page per tenant lists its resources and their streams, with a markdown twin,
// linked from the protocol's page.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const decode = (body: unknown) => exchange(server.url, '/api/lookingglass/decode/scim', json(body));

describe('the looking glass on SCIM', () => {
  it('explains each attribute of a resource and warns of what a service provider refuses or ignores', async () => {
    const { status, body } = await decode({
      resource: { schemas: [USER], userName: 'ann', groups: [{ value: 'g' }], shoeSize: 9, password: 'x' },
    });
    expect(status).toBe(200);
    expect(body.format).toBe('scim-resource');
    expect(body.attributes.find((a: any) => a.path === 'password')).toMatchObject({
      mutability: 'writeOnly',
      returned: 'never',
    });
    expect(body.warnings.join(' ')).toMatch(/groups is readOnly/);
    expect(body.warnings.join(' ')).toMatch(/shoeSize/);
  });

  it('shows what each PATCH operation changes on a given resource, and where one is refused', async () => {
    const resource = { schemas: [USER], id: 'u', userName: 'ann', emails: [{ value: 'a@x.example', type: 'work' }] };
    const { body } = await decode({
      resource,
      patch: {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'replace', path: 'emails[type eq "work"].value', value: 'b@x.example' },
          { op: 'add', path: 'title', value: 'Lead' },
          { op: 'remove', path: 'userName' },
        ],
      },
    });
    const [first, second, third] = body.operations;
    expect(first.target).toMatchObject({ attribute: 'emails', filter: 'type eq "work"', sub_attribute: 'value' });
    expect(first.target.filter_ast).toEqual({ op: 'eq', attrPath: 'type', compValue: 'work' });
    expect(first.changes).toEqual([
      {
        attribute: 'emails',
        before: [{ value: 'a@x.example', type: 'work' }],
        after: [{ value: 'b@x.example', type: 'work' }],
      },
    ]);
    expect(second.changes).toEqual([{ attribute: 'title', before: null, after: 'Lead' }]);
    expect(third.refused).toMatchObject({ scimType: 'mutability' });
  });

  it('parses a filter into its syntax tree, naming each attribute', async () => {
    const { body } = await decode({ filter: 'userName sw "a" and not (emails[type eq "work"])' });
    expect(body.ast).toEqual({
      op: 'and',
      filters: [
        { op: 'sw', attrPath: 'userName', compValue: 'a' },
        {
          op: 'not',
          filter: { op: '[]', attrPath: 'emails', valFilter: { op: 'eq', attrPath: 'type', compValue: 'work' } },
        },
      ],
    });
    expect(body.attributes.map((a: any) => a.path).sort()).toEqual(['emails', 'emails.type', 'userName']);
    const bad = await decode({ filter: 'userName eq' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/does not parse/),
    });
  });

  it('decodes from the page form too, with a markdown twin', async () => {
    const page = await fetch(`${server.url}/looking-glass`, form({ scim: 'emails[type eq "work"]' }));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('SCIM: scim-filter');
    const twin = await fetch(
      `${server.url}/looking-glass`,
      form({ scim: '{"schemas":["' + USER + '"],"userName":"x"}' }, { accept: 'text/markdown' }),
    );
    const markdown = await twin.text();
    expect(markdown).toContain('SCIM: scim-resource');
    expect(markdown).toContain('userName');
  });
});

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
