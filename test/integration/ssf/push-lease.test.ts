import { createServer, type Server } from 'node:http';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, type TestServer } from '../../support/main-server.ts';
import { useTwoInstancesOnPostgres } from '../../support/postgres-instances.ts';
import { postgresAvailable } from '../../support/postgres.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 46 §4: two instances on one PostgreSQL follow the same commits; only the one holding a stream's
// delivery lease (an event of the stream) pushes, so the receiver gets each SET once.
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const instances = useTwoInstancesOnPostgres({ OUTBOUND_ALLOW_LOOPBACK: 'true' });
const received: string[] = [];
let receiver: Server;
let receiverUrl: string;
beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (c) => (body += c));
    request.on('end', () => {
      received.push(body);
      response.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/events`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const call = (at: TestServer, bearer: string, path: string, body: unknown) =>
  exchange(at.url, path, json(body, { authorization: `Bearer ${bearer}` }));

describe.skipIf(!postgresAvailable)('push delivery on two instances', () => {
  it('pushes each SET once: one instance holds the stream’s delivery lease', async () => {
    const [a, b] = instances;
    const [ta, tb] = [await ssfToken(a), await ssfToken(b)];
    const { stream_id } = (
      await call(a, ta, '/ssf/streams', {
        delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: receiverUrl },
        events_requested: [`${RISC}account-purged`],
      })
    ).body as { stream_id: string };
    const subject = { format: 'opaque', id: 'leased' };
    expect((await call(b, tb, '/ssf/subjects:add', { stream_id, subject })).status).toBe(200);
    for (let i = 0; i < 6; i++)
      await call(i % 2 ? a : b, i % 2 ? ta : tb, '/ssf/events', {
        event_type: `${RISC}account-purged`,
        subject,
        event: {},
      });
    const log = a.main.ctx.log;
    const acknowledged = async () =>
      (await log.readStream(`ssf-stream:${stream_id}`)).filter((e) => e.type === 'ssf.sets_acknowledged').length;
    for (let i = 0; i < 300 && (await acknowledged()) < 6; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await acknowledged()).toBe(6);
    // Give the other instance time to push what it should not.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const jtis = received.map((set) => decodeJwt(set).jti);
    expect(jtis).toHaveLength(6);
    expect(new Set(jtis).size).toBe(6);
    const leases = (await log.readStream(`ssf-stream:${stream_id}`)).filter((e) => e.type === 'ssf.delivery_leased');
    expect(new Set(leases.map((e) => e.data.holder)).size).toBe(1);
  });
});
