import { createLocalJWKSet, jwtVerify } from 'jose';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';
import { startTargetBeside } from '../../support/target-server.ts';

// Issue 35: push delivery (RFC 8935) to a test receiver on loopback through the outbound guard's hook:
// application/secevent+jwt with the stream's authorization header, in order, 202 acknowledges, an RFC 8935
// error answer is recorded; with the hook off the guard refuses private targets before anything is stored.
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
type Received = { contentType?: string; authorization?: string; body: string };
const received: Received[] = [];
let refuse = false;
let down = false;
let beside: Awaited<ReturnType<typeof startTargetBeside>>;
let plain: TestServer;
beforeAll(async () => {
  beside = await startTargetBeside((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (c) => (body += c));
    request.on('end', () => {
      received.push({
        contentType: request.headers['content-type'],
        authorization: request.headers.authorization,
        body,
      });
      if (down) {
        response.writeHead(503).end();
        return;
      }
      if (refuse) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ err: 'invalid_audience', description: 'not for us' }));
        return;
      }
      response.writeHead(202).end();
    });
  });
  plain = await startMainServer();
});
afterAll(async () => {
  await beside.close();
  await plain.close();
});

const call = (server: TestServer, bearer: string, method: string, path: string, body?: unknown) =>
  exchange(server.url, path, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
/** Waits (at most three seconds) for the delivery worker, which runs just after the commits (a retry within a second). */
const until = async (check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 300 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await check()).toBe(true);
};

describe('SSF push delivery', () => {
  it('POSTs each SET as application/secevent+jwt with the authorization header, in order, to a loopback receiver', async () => {
    const server = beside.portico;
    const bearer = await ssfToken(server);
    const created = await call(server, bearer, 'POST', '/ssf/streams', {
      delivery: {
        method: 'urn:ietf:rfc:8935',
        endpoint_url: `${beside.base}/events`,
        authorization_header: 'Bearer receiver-secret',
      },
      events_requested: [`${RISC}account-purged`],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.delivery).toEqual({ method: 'urn:ietf:rfc:8935', endpoint_url: `${beside.base}/events` });
    const { stream_id } = created.body;
    const subject = { format: 'opaque', id: 'user-7' };
    await call(server, bearer, 'POST', '/ssf/subjects:add', { stream_id, subject });
    for (let i = 0; i < 3; i++)
      await call(server, bearer, 'POST', '/ssf/events', { event_type: `${RISC}account-purged`, subject, event: {} });
    await until(() => received.length >= 3);
    const jwks = createLocalJWKSet((await (await fetch(`${server.url}/oidc/jwks`)).json()) as never);
    const iats = [];
    for (const r of received.slice(0, 3)) {
      expect(r.contentType).toBe('application/secevent+jwt');
      expect(r.authorization).toBe('Bearer receiver-secret');
      const { payload } = await jwtVerify(r.body, jwks, {
        issuer: server.url,
        audience: 'machine-client',
        typ: 'secevent+jwt',
      });
      expect(payload.sub_id).toEqual(subject);
      iats.push(payload.jti);
    }
    expect(new Set(iats).size).toBe(3);
    // Acknowledged by the 202s: nothing waits any more.
    const log = await server.main.ctx.log.readStream(`ssf-stream:${stream_id}`);
    expect(log.filter((e) => e.type === 'ssf.sets_acknowledged').flatMap((e) => e.data.jtis as string[])).toEqual(iats);
    // The log never holds the receiver's header in clear.
    expect(JSON.stringify(log)).not.toContain('receiver-secret');

    refuse = true;
    const before = received.length;
    await call(server, bearer, 'POST', '/ssf/events', { event_type: `${RISC}account-purged`, subject, event: {} });
    await until(() => received.length > before);
    await until(
      () =>
        (server.main.ctx.log
          .readStream(`ssf-stream:${stream_id}`)
          .then((l) => l.some((e) => e.type === 'ssf.sets_refused')) as never) || true,
    );
    const refused = (await server.main.ctx.log.readStream(`ssf-stream:${stream_id}`)).find(
      (e) => e.type === 'ssf.sets_refused',
    );
    expect(refused?.data.errors).toEqual([
      expect.objectContaining({ err: 'invalid_audience', description: 'not for us' }),
    ]);
    refuse = false;
  });

  it('retries a failing receiver with backoff, and disables the stream after 24 hours, saying why', async () => {
    const server = beside.portico;
    const bearer = await ssfToken(server);
    const { stream_id } = (
      await call(server, bearer, 'POST', '/ssf/streams', {
        delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: `${beside.base}/down` },
      })
    ).body;
    down = true;
    const before = received.length;
    expect((await call(server, bearer, 'POST', '/ssf/verify', { stream_id })).status).toBe(204);
    await until(() => received.length > before);
    // The server's clock runs an hour per check while real retries come (0.5 to 1 s, then 1 to 2 s):
    // a retry a day after the first failure gives up.
    // (Access tokens live an hour: each check asks for a fresh one.)
    await until(async () => {
      server.clock.advance(3600_000);
      return (
        (await call(server, await ssfToken(server), 'GET', `/ssf/status?stream_id=${stream_id}`)).body.status ===
        'disabled'
      );
    });
    const status = (await call(server, await ssfToken(server), 'GET', `/ssf/status?stream_id=${stream_id}`)).body;
    expect(status.reason).toMatch(/push delivery failed for 24 hours: the receiver answered HTTP 503/);
    const failures = (await server.main.ctx.log.readStream(`ssf-stream:${stream_id}`)).filter(
      (e) => e.type === 'ssf.delivery_failed',
    );
    expect(failures.map((e) => e.data.attempt)).toEqual(failures.map((_, i) => i + 1));
    expect(received.length - before).toBeGreaterThanOrEqual(2);
    down = false;
  });

  it('refuses a push endpoint on a private or loopback address with the hook off, storing nothing', async () => {
    const bearer = await ssfToken(plain);
    for (const endpoint of [
      'http://127.0.0.1:9/events',
      'https://10.0.0.1/events',
      'https://[::1]/events',
      'https://169.254.169.254/latest',
      'ftp://example.com/x',
    ]) {
      const refused = await call(plain, bearer, 'POST', '/ssf/streams', {
        delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: endpoint },
      });
      expect(refused.status, endpoint).toBe(400);
      expect(['destination_not_allowed', 'invalid_request']).toContain(refused.body.error);
    }
    expect((await call(plain, bearer, 'GET', '/ssf/streams')).body).toEqual([]);
  });
});
