import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';
import { ENTERPRISE, expectScimError, GROUP, scimClient, scimToken, USER } from '../../support/scim.ts';

// Issue 48: the SCIM 2.0 service provider at {base}/scim/v2, spoken to over HTTP with real tokens, and
// through /mcp's read-only tools; an agent of /agentauth appears in /Agents read-only (linked by its claim
// token, the capability that already revokes it), and its DELETE there revokes it.
const AGENT = 'urn:ietf:params:scim:schemas:core:2.0:Agent';
const LINK = 'urn:portico:params:scim:schemas:extension:agentauth:1.0:Agent';

let server: TestServer;
let scim: ReturnType<typeof scimClient>;
beforeAll(async () => {
  server = await startMainServer();
  scim = scimClient(server.url, await scimToken(server));
});
afterAll(() => server.close());

describe('access (RFC 6750 with {base}/oauth2 tokens)', () => {
  it('refuses a request without a token: 401 with a challenge, in both error shapes', async () => {
    const res = await fetch(`${server.url}/scim/v2/Users`);
    const body = await res.json();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expectScimError({ status: res.status, headers: res.headers, body }, 401);
    expect(body.error).toBe('invalid_token');
  });

  it('refuses a token without scope scim: 403 insufficient_scope', async () => {
    const other = scimClient(server.url, await ssfToken(server));
    const answer = await other.get('/Users');
    expectScimError(answer, 403);
    expect(answer.body.error).toBe('insufficient_scope');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", .*scope="scim"/);
  });

  it('gives each client its own tenant, seeded with the demo data', async () => {
    const mine = await scim.createUser('only.mine');
    const theirs = scimClient(server.url, await scimToken(server, 'demo-app'));
    const list = await theirs.get('/Users');
    expect(list.status).toBe(200);
    expect(list.body.Resources.map((u: any) => u.userName).sort()).toEqual(['avery.lee', 'blake.chen', 'casey.okafor']);
    expectScimError(await theirs.get(`/Users/${mine.id}`), 404);
    const groups = await theirs.get('/Groups');
    expect(groups.body.totalResults).toBe(2);
    expect((await theirs.get('/Agents')).body.Resources[0].name).toBe('release-bot');
  });
});

describe('discovery (RFC 7643 §5-7)', () => {
  it('[rfc7643-001] says what is supported, with the limits it enforces', async () => {
    const res = await fetch(`${server.url}/scim/v2/ServiceProviderConfig`);
    expect(res.headers.get('content-type')).toContain('application/scim+json');
    const config = await res.json();
    expect(config.patch.supported).toBe(true);
    expect(config.bulk).toEqual({ supported: true, maxOperations: 100, maxPayloadSize: 1_048_576 });
    expect(config.filter).toEqual({ supported: true, maxResults: 200 });
    expect(config.sort.supported && config.etag.supported).toBe(true);
    expect(config.pagination).toMatchObject({ cursor: true, index: true, maxPageSize: 200 });
    expect(config.authenticationSchemes[0].type).toBe('oauthbearertoken');
  });

  it('[rfc7643-002] lists the resource types and the schemas with their characteristics', async () => {
    const types = await (await fetch(`${server.url}/scim/v2/ResourceTypes`)).json();
    expect(types.Resources.map((t: any) => t.endpoint)).toEqual(['/Users', '/Groups', '/Agents']);
    expect(types.Resources[0].schemaExtensions).toEqual([{ schema: ENTERPRISE, required: false }]);
    const user = await (await fetch(`${server.url}/scim/v2/Schemas/${USER}`)).json();
    const password = user.attributes.find((a: any) => a.name === 'password');
    expect(password).toMatchObject({ mutability: 'writeOnly', returned: 'never' });
    expect(user.attributes.find((a: any) => a.name === 'userName').uniqueness).toBe('server');
    expect((await fetch(`${server.url}/scim/v2/Schemas/urn:nope`)).status).toBe(404);
  });
});

describe('create, read, replace, delete (RFC 7644 §3.3-3.6)', () => {
  it('[rfc7644-002] creates with Location and ETag, never returns or stores the password whole, ignores readOnly input', async () => {
    const created = await scim.post('/Users', {
      schemas: [USER, ENTERPRISE],
      userName: 'Dana.Reed',
      password: 'correct horse battery staple',
      id: 'chosen-by-client',
      groups: [{ value: 'x' }],
      meta: { version: 'W/"99"' },
      [ENTERPRISE]: { department: 'Ops', manager: { value: 'm1', displayName: 'ignored' } },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.url}/scim/v2/Users/${created.body.id}`);
    expect(created.headers.get('etag')).toBe('W/"1"');
    expect(created.body.id).not.toBe('chosen-by-client');
    expect(created.body.password).toBeUndefined();
    expect(created.body.groups).toBeUndefined();
    expect(created.body[ENTERPRISE]).toEqual({ department: 'Ops', manager: { value: 'm1' } });
    expect(created.body.meta).toMatchObject({ resourceType: 'User', version: 'W/"1"' });
    const stream = await fetch(`${server.url}/api/streams/scim-user:machine-client:${created.body.id}/export`, {
      headers: { authorization: `Bearer ${await scimToken(server)}` },
    });
    const exported = await stream.text();
    expect(stream.status, exported.slice(0, 200)).toBe(200);
    expect(exported).toContain('scim.created');
    expect(exported).not.toContain('correct horse');
  });

  it('[rfc7644-004] replaces the whole resource, and deletes it', async () => {
    const user = await scim.createUser('erin.wu', { displayName: 'Erin', title: 'Dev' });
    const replaced = await scim.put(`/Users/${user.id}`, { schemas: [USER], userName: 'erin.wu', nickName: 'E' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.title).toBeUndefined();
    expect(replaced.body.nickName).toBe('E');
    expect(replaced.body.meta.version).toBe('W/"2"');
    expect((await scim.delete(`/Users/${user.id}`)).status).toBe(204);
    expectScimError(await scim.get(`/Users/${user.id}`), 404);
    expectScimError(await scim.delete(`/Users/${user.id}`), 404);
  });

  it('[rfc7644-003] keeps userName unique per tenant, case-insensitively, and frees a name on rename and delete', async () => {
    const first = await scim.createUser('Frank');
    expectScimError(await scim.post('/Users', { schemas: [USER], userName: 'FRANK' }), 409, 'uniqueness');
    expect(
      (await scim.patch(`/Users/${first.id}`, [{ op: 'replace', path: 'userName', value: 'frank.new' }])).status,
    ).toBe(200);
    const second = await scim.createUser('frank');
    expectScimError(
      await scim.put(`/Users/${second.id}`, { schemas: [USER], userName: 'Frank.New' }),
      409,
      'uniqueness',
    );
    await scim.delete(`/Users/${first.id}`);
    expect((await scim.put(`/Users/${second.id}`, { schemas: [USER], userName: 'Frank.New' })).status).toBe(200);
  });

  it('[rfc7644-001] refuses malformed resources with the error RFC 7644 §3.12 names', async () => {
    expectScimError(await scim.post('/Users', { userName: 'x' }), 400, 'invalidSyntax');
    expectScimError(await scim.post('/Users', { schemas: [USER] }), 400, 'invalidValue');
    expectScimError(await scim.post('/Users', { schemas: [USER], userName: 'y', shoeSize: 9 }), 400, 'invalidSyntax');
    expectScimError(await scim.post('/Users', { schemas: [USER], userName: 'y', active: 'yes' }), 400, 'invalidValue');
    const twoPrimaries = [
      { value: 'a@x.example', primary: true },
      { value: 'b@x.example', primary: true },
    ];
    expectScimError(
      await scim.post('/Users', { schemas: [USER], userName: 'y', emails: twoPrimaries }),
      400,
      'invalidValue',
    );
    expectScimError(await scim.post('/Users', '{not json'), 400, 'invalidSyntax');
    expectScimError(
      await scim.post('/Groups', { schemas: [GROUP], displayName: 'G', members: [{ value: 'nobody' }] }),
      400,
      'invalidValue',
    );
  });
});

describe('groups and agents', () => {
  it('[rfc7643-004] shows a user the groups holding it, directly and through nested groups (RFC 7643 §4.1.2)', async () => {
    const avery = await scim.userNamed('avery.lee');
    const groups = Object.fromEntries(avery.groups.map((g: any) => [g.display, g.type]));
    expect(groups).toEqual({ Engineering: 'direct', Everyone: 'indirect' });
    const engineering = (await scim.get(`/Groups/${avery.groups.find((g: any) => g.display === 'Engineering').value}`))
      .body;
    expect(engineering.members.map((m: any) => m.display).sort()).toEqual(['Avery Lee', 'Blake Chen']);
    expect(engineering.members[0].$ref).toMatch(/\/scim\/v2\/Users\//);
  });

  it('[rfc7643-003] refuses a change to a member value, which is immutable (RFC 7643 §7)', async () => {
    const avery = await scim.userNamed('avery.lee');
    const blake = await scim.userNamed('blake.chen');
    const group = (
      await scim.post('/Groups', { schemas: [GROUP], displayName: 'Pair', members: [{ value: avery.id }] })
    ).body;
    const changed = await scim.patch(`/Groups/${group.id}`, [
      { op: 'replace', path: `members[value eq "${avery.id}"].value`, value: blake.id },
    ]);
    expectScimError(changed, 400, 'mutability');
    const added = await scim.patch(`/Groups/${group.id}`, [
      { op: 'add', path: 'members', value: [{ value: blake.id }] },
    ]);
    expect(added.body.members).toHaveLength(2);
  });
});

const register = async () =>
  (await exchange(server.url, '/agentauth/identity', json({ type: 'anonymous' }))).body as {
    agent_id: string;
    claim_token: string;
  };
const linkBody = (name: string, claimToken: string) => ({ schemas: [AGENT, LINK], name, [LINK]: { claimToken } });

describe('AgentAuth agents in /Agents', () => {
  it('links an agent by its claim token, keeps nothing of the token, and mirrors its standing read-only', async () => {
    const agent = await register();
    const linked = await scim.post('/Agents', linkBody('linked.agent', agent.claim_token));
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    expect(linked.body[LINK]).toEqual({ agentId: agent.agent_id, standing: 'unclaimed' });
    expect(linked.body.active).toBe(true);
    const exported = await (
      await fetch(`${server.url}/api/streams/scim-agent:machine-client:${linked.body.id}/export`, {
        headers: { authorization: `Bearer ${await scimToken(server)}` },
      })
    ).text();
    expect(exported).toContain(agent.agent_id);
    expect(exported).not.toContain(agent.claim_token);
    expectScimError(
      await scim.patch(`/Agents/${linked.body.id}`, [{ op: 'replace', path: 'displayName', value: 'x' }]),
      400,
      'mutability',
    );
    expectScimError(
      await scim.put(`/Agents/${linked.body.id}`, { schemas: [AGENT], name: 'linked.agent' }),
      400,
      'mutability',
    );
    expectScimError(await scim.post('/Agents', linkBody('twice', agent.claim_token)), 409, 'uniqueness');
    // The refused link held nothing: its name is free.
    expect((await scim.post('/Agents', { schemas: [AGENT], name: 'twice' })).status).toBe(201);

    // Revoked at /agentauth: the Agent shows it.
    expect((await exchange(server.url, '/agentauth/revoke', form({ token: agent.claim_token }))).status).toBe(200);
    const after = await scim.get(`/Agents/${linked.body.id}`);
    expect(after.body.active).toBe(false);
    expect(after.body[LINK].standing).toBe('revoked');
  });

  it('revokes the agent when its Agent is deleted, and refuses a claim token that names no live agent', async () => {
    const agent = await register();
    const linked = await scim.post('/Agents', linkBody('to.delete', agent.claim_token));
    expect(linked.status).toBe(201);
    expect((await scim.delete(`/Agents/${linked.body.id}`)).status).toBe(204);
    // The claim token now names a revoked agent: nothing can link it again, and its claim is refused.
    expectScimError(await scim.post('/Agents', linkBody('again', agent.claim_token)), 400, 'invalidValue');
    const claim = await exchange(
      server.url,
      '/agentauth/identity/claim',
      json({ claim_token: agent.claim_token, email: 'alice@example.com' }),
    );
    expect(claim.body.error, JSON.stringify(claim.body)).toBe('invalid_grant');
    expectScimError(await scim.post('/Agents', linkBody('forged', 'not-a-claim-token')), 400, 'invalidValue');
    // An agent id is no proof: agentId is readOnly, so the Agent made is linked to nothing.
    const unproven = await scim.post('/Agents', {
      schemas: [AGENT, LINK],
      name: 'no-proof',
      [LINK]: { agentId: agent.agent_id },
    });
    expect(unproven.status).toBe(201);
    expect(unproven.body[LINK]).toBeUndefined();
    expect((await scim.delete(`/Agents/${unproven.body.id}`)).status).toBe(204);
  });
});

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
