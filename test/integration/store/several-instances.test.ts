import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { exchange, form, json, type TestServer } from '../../support/main-server.ts';
import { useTwoInstancesOnPostgres } from '../../support/postgres-instances.ts';
import { postgresAvailable } from '../../support/postgres.ts';
import { expectScimError, scimClient, scimToken, USER } from '../../support/scim.ts';
import { ssfToken } from '../../support/ssf.ts';

// Two instances on one PostgreSQL share the log (one database for the file's features, to start it once).
// Issue 35: a SET acknowledged at one is never delivered by the other, and an automatic event is queued
// once though both instances follow the log. Issue 48: one SCIM tenant, versions and unique names across them.
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const instances = useTwoInstancesOnPostgres();

const call = (at: TestServer, bearer: string, path: string, body: unknown) =>
  exchange(at.url, path, json(body, { authorization: `Bearer ${bearer}` }));

describe.skipIf(!postgresAvailable)('SSF on several instances', () => {
  it('never delivers an acknowledged SET again, whichever instance is polled', async () => {
    const [a, b] = instances;
    const [ta, tb] = [await ssfToken(a), await ssfToken(b)];
    const { stream_id } = (
      await call(a, ta, '/ssf/streams', { events_requested: [`${RISC}account-purged`, `${CAEP}session-revoked`] })
    ).body;
    const subject = { format: 'opaque', id: 'shared' };
    expect((await call(b, tb, '/ssf/subjects:add', { stream_id, subject })).status).toBe(200);
    await call(a, ta, '/ssf/events', { event_type: `${RISC}account-purged`, subject, event: {} });
    const atB = Object.keys((await call(b, tb, `/ssf/poll/${stream_id}`, { returnImmediately: true })).body.sets);
    expect(atB).toHaveLength(1);
    expect((await call(b, tb, `/ssf/poll/${stream_id}`, { returnImmediately: true, ack: atB })).body.sets).toEqual({});
    expect((await call(a, ta, `/ssf/poll/${stream_id}`, { returnImmediately: true })).body.sets).toEqual({});

    // An agent revoked at a: both instances follow the commit; the stream gets one SET of it.
    const agent = (await exchange(a.url, '/agentauth/identity', json({ type: 'anonymous' }))).body;
    // The instances listen on two ports, so each names the agent issuer by its own base URL; a deployment
    // shares one. The fact is signalled by whichever instance's follower takes it first: both names are
    // added, and either way the stream queues the fact once.
    for (const at of [a, b])
      await call(a, ta, '/ssf/subjects:add', {
        stream_id,
        subject: { format: 'iss_sub', iss: `${at.url}/agentauth`, sub: agent.agent_id },
      });
    await exchange(a.url, '/agentauth/revoke', form({ token: agent.claim_token }));
    const sets = (await call(b, tb, `/ssf/poll/${stream_id}`, {})).body.sets as Record<string, string>;
    // Give the other instance's follower time to try the same fact too.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const all = { ...sets, ...(await call(a, ta, `/ssf/poll/${stream_id}`, { returnImmediately: true })).body.sets };
    const revocations = Object.values(all).filter(
      (s) => Object.keys(decodeJwt(s as string).events as object)[0] === `${CAEP}session-revoked`,
    );
    expect(revocations).toHaveLength(1);
  });
});

describe.skipIf(!postgresAvailable)('SCIM on several instances', () => {
  it('patches at one a user created at the other with the right If-Match, and refuses a stale one', async () => {
    const [a, b] = instances;
    const atA = scimClient(a.url, await scimToken(a));
    const atB = scimClient(b.url, await scimToken(b));
    const user = await atA.createUser('shared.user');
    expect((await atB.get(`/Users/${user.id}`)).body.userName).toBe('shared.user');
    const patched = await atB.patch(`/Users/${user.id}`, [{ op: 'replace', path: 'title', value: 'B' }], {
      'if-match': 'W/"1"',
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.headers.get('etag')).toBe('W/"2"');
    expectScimError(
      await atA.patch(`/Users/${user.id}`, [{ op: 'replace', path: 'title', value: 'A' }], { 'if-match': 'W/"1"' }),
      412,
    );
    expect((await atA.get(`/Users/${user.id}`)).body.title).toBe('B');
    // The demo data was seeded once, whichever instance the tenant met first.
    expect((await atB.get('/Users?filter=userName%20eq%20%22avery.lee%22')).body.totalResults).toBe(1);
  });

  it('gives a userName to one user only, when both instances are asked at once', async () => {
    const [a, b] = instances;
    const clients = [scimClient(a.url, await scimToken(a)), scimClient(b.url, await scimToken(b))];
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        clients[i % 2].post('/Users', { schemas: [USER], userName: i % 2 ? 'RACE' : 'race' }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const refused of answers.filter((r) => r.status === 409)) expect(refused.body.scimType).toBe('uniqueness');
  });
});
