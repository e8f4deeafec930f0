import SCIMMY from 'scimmy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { scimClient, scimToken } from '../../support/scim.ts';

// Issue 48: SCIMMY's schema classes (RFC 7643, written by others) validate what our service provider
// answers: each resource comes back from their coercion unchanged, so every attribute is one their
// schema knows, of the right type, and nothing required is missing.
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
let server: TestServer;
let scim: ReturnType<typeof scimClient>;
const { Schemas, Messages, Types } = SCIMMY;
// Their typings want an instance; their documentation and code take the schema class.
Schemas.User.extend(Schemas.EnterpriseUser as never, false);

beforeAll(async () => {
  server = await startMainServer();
  scim = scimClient(server.url, await scimToken(server));
  // Something of every kind: a user with the extension and most attributes, a nested group.
  const user = await scim.createUser('full.user', {
    name: { formatted: 'Full User', givenName: 'Full', familyName: 'User' },
    displayName: 'Full User',
    nickName: 'Full',
    profileUrl: 'https://example.com/full',
    title: 'Tester',
    userType: 'Employee',
    preferredLanguage: 'en-GB',
    locale: 'en-GB',
    timezone: 'Europe/London',
    active: true,
    password: 'never returned',
    emails: [{ value: 'full@example.com', type: 'work', primary: true }],
    phoneNumbers: [{ value: 'tel:+44-20-7946-0000', type: 'work' }],
    addresses: [{ streetAddress: '1 Main St', locality: 'London', country: 'GB', type: 'work', primary: true }],
    roles: [{ value: 'admin' }],
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': {
      employeeNumber: '7',
      manager: { value: 'someone' },
    },
  });
  await scim.post('/Groups', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: 'Testers',
    members: [{ value: user.id, type: 'User' }],
  });
});
afterAll(() => server.close());

/** The resource as SCIMMY's schema class makes it for sending (direction "out"), as plain JSON. */
const coerced = (schema: { new (data: object, direction: string): object }, resource: object) =>
  JSON.parse(JSON.stringify(new schema(resource, 'out')));

describe("SCIMMY's schemas accept our answers", () => {
  it('every user and group of a list, unchanged, in a ListResponse they accept', async () => {
    for (const [path, schema] of [
      ['/Users', Schemas.User],
      ['/Groups', Schemas.Group],
    ] as const) {
      const list = (await scim.get(path)).body;
      expect(() => new Messages.ListResponse(list)).not.toThrow();
      expect(list.Resources.length).toBeGreaterThan(1);
      for (const resource of list.Resources) expect(coerced(schema, resource)).toEqual(resource);
    }
  });

  it('the ListResponse of a search and of the agents, and the BulkResponse', async () => {
    const search = (
      await scim.post('/.search', {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
        filter: 'userName pr or displayName pr',
      })
    ).body;
    expect(() => new Messages.ListResponse(search)).not.toThrow();
    expect(search.totalResults).toBeGreaterThan(3);
    for (const r of search.Resources.filter((x: any) => x.meta.resourceType === 'User'))
      expect(coerced(Schemas.User, r)).toEqual(r);
    for (const r of search.Resources.filter((x: any) => x.meta.resourceType === 'Group'))
      expect(coerced(Schemas.Group, r)).toEqual(r);
    const agents = (await scim.get('/Agents')).body;
    expect(() => new Messages.ListResponse(agents)).not.toThrow();
    const bulk = await scim.post('/Bulk', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: [
        { method: 'POST', bulkId: 'b', path: '/Users', data: { schemas: [USER], userName: 'bulk.checked' } },
        { method: 'DELETE', path: '/Users/not-there' },
      ],
    });
    const parsed = JSON.parse(JSON.stringify(new Messages.BulkResponse(bulk.body)));
    expect(parsed.Operations.map((o: any) => o.status)).toEqual(['201', '404']);
  });

  it('each resource read alone, after a PATCH and a PUT', async () => {
    const user = await scim.userNamed('full.user');
    const patched = await scim.patch(`/Users/${user.id}`, [
      { op: 'add', path: 'emails', value: [{ value: 'home@example.com', type: 'home' }] },
      { op: 'replace', path: 'name.middleName', value: 'M' },
    ]);
    expect(coerced(Schemas.User, patched.body)).toEqual(patched.body);
    const { meta: _meta, id: _id, groups: _groups, ...rest } = patched.body;
    const replaced = await scim.put(`/Users/${user.id}`, { ...rest, title: 'Replaced' });
    expect(coerced(Schemas.User, replaced.body)).toEqual(replaced.body);
  });

  it('the agent, against the Agent schema we publish, built with their attribute types', async () => {
    const published = await (
      await fetch(`${server.url}/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:Agent`)
    ).json();
    const toAttribute = (a: any): InstanceType<typeof Types.Attribute> =>
      new Types.Attribute(
        a.type,
        a.name,
        {
          required: a.required,
          mutable: a.mutability === 'immutable' ? 'immutable' : a.mutability !== 'readOnly',
          returned: a.returned,
          multiValued: a.multiValued,
          caseExact: a.caseExact,
          uniqueness: a.uniqueness,
          referenceTypes: a.referenceTypes,
          canonicalValues: a.canonicalValues,
        },
        (a.subAttributes ?? []).map(toAttribute),
      );
    const definition = new Types.SchemaDefinition(
      'Agent',
      published.id,
      published.description,
      published.attributes.map(toAttribute),
    );
    const agents = (await scim.get('/Agents')).body.Resources;
    expect(agents).toHaveLength(1);
    const out = JSON.parse(JSON.stringify(definition.coerce(agents[0], 'out')));
    const { id: _id, meta: _meta, schemas: _schemas, ...attributes } = agents[0];
    expect(out).toMatchObject(attributes);
  });

  it('the discovery documents', async () => {
    const config = await (await fetch(`${server.url}/scim/v2/ServiceProviderConfig`)).json();
    const checked = coerced(Schemas.ServiceProviderConfig, config);
    expect(checked.patch).toEqual(config.patch);
    expect(checked.bulk).toEqual(config.bulk);
    expect(checked.filter).toEqual(config.filter);
    const types = (await (await fetch(`${server.url}/scim/v2/ResourceTypes`)).json()).Resources;
    for (const t of types)
      expect(coerced(Schemas.ResourceType, t)).toMatchObject({ name: t.name, endpoint: t.endpoint, schema: t.schema });
  });
});
