import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { exchange, form, json, type TestServer } from '../../support/main-server.ts';
import { useTwoInstancesOnPostgres } from '../../support/postgres-instances.ts';
import { postgresAvailable } from '../../support/postgres.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 35: two instances on one PostgreSQL share the streams: a SET acknowledged at one is never delivered
// by the other, and an automatic event is queued once though both instances follow the log.
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
