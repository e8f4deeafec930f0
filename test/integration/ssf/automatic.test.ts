import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holderKey, issueWithOffer, asCreator } from '../../support/holder.ts';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { pollVerified, ssfToken } from '../../support/ssf.ts';

// Issue 35: the three events the service emits by itself, each triggered by the real action: an agent
// identity revoked, a refresh-token family revoked, a credential's status changed.
let server: TestServer;
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const call = (bearer: string, path: string, body: unknown) =>
  exchange(server.url, path, json(body, { authorization: `Bearer ${bearer}` }));
/** Long polls (acknowledging as it goes) until `count` SETs came: the service emits just after the fact's commit. */
const pollAll = async (bearer: string, streamId: string, count = 1) =>
  (await pollVerified(server, bearer, streamId, count)).payloads;

/** RFC 8417 §2.2 `txn`: an opaque keyed fingerprint of the transaction's stream, never its id. */
const OPAQUE_TXN = /^[A-Za-z0-9_-]{22}$/;

describe('SETs the service emits by itself', () => {
  it('CAEP session-revoked when an agent identity is revoked, about the agent (iss_sub)', async () => {
    const bearer = await ssfToken(server);
    const { stream_id } = (await call(bearer, '/ssf/streams', { events_requested: [`${CAEP}session-revoked`] })).body;
    const agent = (await exchange(server.url, '/agentauth/identity', json({ type: 'anonymous' }))).body;
    const agentId = agent.agent_id as string;
    const subject = { format: 'iss_sub', iss: `${server.url}/agentauth`, sub: agentId };
    expect((await call(bearer, '/ssf/subjects:add', { stream_id, subject })).status).toBe(200);
    expect((await exchange(server.url, '/agentauth/revoke', form({ token: agent.claim_token }))).status).toBe(200);
    const [set] = await pollAll(bearer, stream_id);
    expect(set).toMatchObject({ sub_id: subject, txn: expect.stringMatching(OPAQUE_TXN) });
    expect(set.txn).not.toContain(agentId);
    expect(set.events[`${CAEP}session-revoked`]).toMatchObject({ event_timestamp: expect.any(Number) });
  });

  it("CAEP session-revoked when a refresh-token family is revoked, about the family's user", async () => {
    const bearer = await ssfToken(server);
    const { stream_id } = (await call(bearer, '/ssf/streams', { events_requested: [`${CAEP}session-revoked`] })).body;
    for (const iss of [server.url, `${server.url}/oauth2`])
      await call(bearer, '/ssf/subjects:add', { stream_id, subject: { format: 'iss_sub', iss, sub: 'alice' } });
    const run = await exchange(server.url, '/api/protocols/oauth2/demo/refresh-token', json({}));
    expect(run.body.status).toBe('succeeded');
    const sets = await pollAll(bearer, stream_id);
    expect(sets.length).toBeGreaterThanOrEqual(1);
    expect(sets[0].sub_id).toMatchObject({ format: 'iss_sub', sub: 'alice' });
    expect(sets[0].txn).toMatch(OPAQUE_TXN);
    expect(sets[0].events[`${CAEP}session-revoked`].reason_admin.en).toMatch(/RFC 7009|reuse/);
  });

  it("CAEP credential-change when a credential's status changes, to every stream that delivers it", async () => {
    const bearer = await ssfToken(server);
    const { stream_id } = (await call(bearer, '/ssf/streams', { events_requested: [`${CAEP}credential-change`] })).body;
    const holder = await holderKey();
    const { offerId } = await issueWithOffer(
      server.url,
      'UniversityDegreeCredential',
      holder,
      Math.floor(server.clock.now() / 1000),
    );
    for (const status of ['suspended', 'revoked'])
      expect(
        (
          await exchange(
            server.url,
            `/oid4vci/offers/${offerId}/credentials/0/status`,
            json({ status }, asCreator(offerId)),
          )
        ).status,
      ).toBe(200);
    const sets = await pollAll(bearer, stream_id, 2);
    expect(sets.map((s) => s.events[`${CAEP}credential-change`].change_type)).toEqual(['update', 'revoke']);
    expect(sets[0].events[`${CAEP}credential-change`].credential_type).toBe('verifiable-credential');
    expect(sets[0].sub_id).toMatchObject({
      format: 'uri',
      uri: expect.stringMatching(/\/oid4vci\/status-lists\/.+#\d+$/),
    });
    // Issue 45 item 34: the txn correlates the two SETs of one issuance without naming its offer.
    expect(sets[0].txn).toMatch(OPAQUE_TXN);
    expect(sets[1].txn).toBe(sets[0].txn);
    expect(JSON.stringify(sets)).not.toContain(offerId);
  });
});
