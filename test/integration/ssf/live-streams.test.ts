import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 45 item 38: emission and start-up read a read model of the live streams, so their cost follows
// the streams that are live, never every stream ever created and deleted.
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
});
afterAll(() => server.close());

/** The management API with a fresh `ssf` token of the machine client. */
async function management() {
  const token = await ssfToken(server, 'machine-client');
  return (method: string, path: string, body?: unknown) =>
    exchange(server.url, path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
}

describe('live Shared Signals streams', () => {
  it('an emission reads only the live streams, however many were created and deleted before', async () => {
    const call = await management();
    for (let i = 0; i < 60; i++) {
      const { stream_id } = (await call('POST', '/ssf/streams', {})).body;
      expect((await call('DELETE', `/ssf/streams?stream_id=${stream_id}`)).status).toBe(204);
    }
    const live = (await call('POST', '/ssf/streams', { events_requested: [`${RISC}account-disabled`] })).body
      .stream_id as string;
    const subject = { format: 'email', email: 'erin@example.com' };
    await call('POST', '/ssf/subjects:add', { stream_id: live, subject });

    // What the log is asked while one event is emitted: never the list of every stream ever made, and
    // no stream but the live one.
    const log = server.main.ctx.log;
    const asked: string[] = [];
    const [readStream, streamIds] = [log.readStream.bind(log), log.streamIds.bind(log)];
    log.readStream = ((streamId: string, ...rest: unknown[]) => {
      asked.push(streamId);
      return (readStream as (...a: unknown[]) => never)(streamId, ...rest);
    }) as typeof log.readStream;
    log.streamIds = ((prefix: string) => {
      asked.push(`${prefix}*`);
      return streamIds(prefix);
    }) as typeof log.streamIds;
    try {
      const sent = await call('POST', '/ssf/events', { event_type: `${RISC}account-disabled`, subject, event: {} });
      expect(sent.status).toBe(202);
      expect(sent.body.queued).toHaveLength(1);
    } finally {
      Object.assign(log, { readStream, streamIds });
    }
    expect(asked.filter((id) => id.startsWith('ssf-stream:') && id !== `ssf-stream:${live}`)).toEqual([]);
    expect((await call('GET', '/ssf/streams')).body.map((s: { stream_id: string }) => s.stream_id)).toEqual([live]);
  });

  it('[issue 46 §4] an emission reads only the streams that deliver its type: the subscriptions read model answers', async () => {
    const call = await management();
    const subject = { format: 'email', email: 'frank@example.com' };
    const streamFor = async (type: string) => {
      const id = (await call('POST', '/ssf/streams', { events_requested: [`${RISC}${type}`] })).body
        .stream_id as string;
      await call('POST', '/ssf/subjects:add', { stream_id: id, subject });
      return id;
    };
    const purged = await streamFor('account-purged');
    const others = [await streamFor('account-enabled'), await streamFor('account-credential-change-required')];
    // Which stream actors the emission looks at (from memory or the log alike).
    const actors = server.main.ctx.ssf.streams.actors;
    const asked: string[] = [];
    const get = actors.get.bind(actors);
    actors.get = ((id: string) => {
      asked.push(id);
      return get(id);
    }) as typeof actors.get;
    try {
      const sent = await call('POST', '/ssf/events', { event_type: `${RISC}account-purged`, subject, event: {} });
      expect(sent.body.queued.map((q: { stream_id: string }) => q.stream_id)).toEqual([purged]);
    } finally {
      actors.get = get;
    }
    expect(asked).toContain(purged);
    for (const other of others) expect(asked).not.toContain(other);
    for (const id of [purged, ...others]) await call('DELETE', `/ssf/streams?stream_id=${id}`);
  });
});
