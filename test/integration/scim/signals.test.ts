import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { pollVerified, ssfToken } from '../../support/ssf.ts';
import { scimClient, scimToken } from '../../support/scim.ts';

// Issue 48: deprovisioning at the SCIM service provider signals through Shared Signals, once per stream.
let server: TestServer;
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const TYPES = ['account-disabled', 'account-enabled', 'account-purged'].map((t) => `${RISC}${t}`);
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const call = (bearer: string, path: string, body: unknown) =>
  exchange(server.url, path, json(body, { authorization: `Bearer ${bearer}` }));

const poll = (bearer: string, streamId: string, count: number) =>
  pollVerified(server, bearer, streamId, count, { returnImmediately: true });

describe('deprovisioning signals (RISC 1.0 §2.2-2.4)', () => {
  it('disabling, enabling and deleting a user each emit one SET, to a stream that added its email and its scim subject', async () => {
    const bearer = await ssfToken(server);
    const scim = scimClient(server.url, await scimToken(server));
    const user = await scim.createUser('sig.nal', {
      emails: [{ value: 'sig.nal@corp.example', type: 'work', primary: true }],
    });
    const { stream_id } = (await call(bearer, '/ssf/streams', { events_requested: TYPES })).body;
    const email = { format: 'email', email: 'sig.nal@corp.example' };
    const scimSubject = { format: 'scim', uri: `${server.url}/scim/v2/Users/${user.id}` };
    expect((await call(bearer, '/ssf/subjects:add', { stream_id, subject: email })).status).toBe(200);
    expect((await call(bearer, '/ssf/subjects:add', { stream_id, subject: scimSubject })).status).toBe(200);

    // A change that leaves `active` as it is signals nothing.
    await scim.patch(`/Users/${user.id}`, [{ op: 'replace', path: 'title', value: 'Quiet' }]);
    await scim.patch(`/Users/${user.id}`, [{ op: 'replace', path: 'active', value: false }]);
    await scim.patch(`/Users/${user.id}`, [{ op: 'replace', path: 'active', value: false }]);
    await scim.put(`/Users/${user.id}`, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'sig.nal',
      active: true,
      emails: [{ value: 'sig.nal@corp.example' }],
    });
    expect((await scim.delete(`/Users/${user.id}`)).status).toBe(204);

    const { payloads, rest } = await poll(bearer, stream_id, 3);
    expect(payloads.map((p) => Object.keys(p.events)[0])).toEqual(TYPES);
    for (const p of payloads) expect(p.sub_id).toEqual(email);
    expect(rest).toEqual([]);
  });

  it('reaches a stream that added only the scim subject, about that subject; and none for groups', async () => {
    const bearer = await ssfToken(server);
    const scim = scimClient(server.url, await scimToken(server));
    const user = await scim.createUser('no.mail');
    const { stream_id } = (await call(bearer, '/ssf/streams', { events_requested: TYPES })).body;
    const scimSubject = { format: 'scim', uri: `${server.url}/scim/v2/Users/${user.id}` };
    await call(bearer, '/ssf/subjects:add', { stream_id, subject: scimSubject });
    await scim.patch(`/Users/${user.id}`, [{ op: 'add', path: 'active', value: false }]);
    const { payloads } = await poll(bearer, stream_id, 1);
    expect(payloads).toHaveLength(1);
    expect(payloads[0].sub_id).toEqual(scimSubject);
    expect(Object.keys(payloads[0].events)).toEqual([`${RISC}account-disabled`]);
  });
});
