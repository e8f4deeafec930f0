import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 35: the SSF 1.0 transmitter's configuration, stream management API and its errors, subjects,
// status with stream-updated, verification, poll with ack, and SETs a peer (jose) verifies.
let server: TestServer;
const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const call = (token: string | undefined, method: string, path: string, body?: unknown) =>
  exchange(server.url, path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
async function verifySet(jwt: string, aud: string) {
  const jwks = (await (await fetch(`${server.url}/oidc/jwks`)).json()) as never;
  const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet(jwks), {
    issuer: server.url,
    audience: aud,
    typ: 'secevent+jwt',
  });
  expect(protectedHeader.alg).toBe('ES256');
  return payload as Record<string, any>;
}

describe('SSF transmitter', () => {
  it('publishes its configuration metadata', async () => {
    const config = (await exchange(server.url, '/.well-known/ssf-configuration', { method: 'GET' })).body;
    expect(config).toEqual({
      spec_version: '1_0',
      issuer: server.url,
      jwks_uri: `${server.url}/oidc/jwks`,
      delivery_methods_supported: ['urn:ietf:rfc:8935', 'urn:ietf:rfc:8936'],
      configuration_endpoint: `${server.url}/ssf/streams`,
      status_endpoint: `${server.url}/ssf/status`,
      add_subject_endpoint: `${server.url}/ssf/subjects:add`,
      remove_subject_endpoint: `${server.url}/ssf/subjects:remove`,
      verification_endpoint: `${server.url}/ssf/verify`,
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6749' }],
      default_subjects: 'NONE',
    });
  });

  it('guards the management API: 401 with a challenge, 403 insufficient_scope, 404 for another client', async () => {
    const none = await call(undefined, 'GET', '/ssf/streams');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const apiOnly = await ssfToken(server, 'machine-client', 'api:read');
    const scoped = await call(apiOnly, 'GET', '/ssf/streams');
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toBe('insufficient_scope');
    expect(scoped.headers.get('www-authenticate')).toMatch(/insufficient_scope.*scope="ssf"/);
    const mine = await ssfToken(server, 'machine-client');
    const created = await call(mine, 'POST', '/ssf/streams', { events_requested: [`${CAEP}session-revoked`] });
    const other = await ssfToken(server, 'demo-app');
    for (const [method, path] of [
      ['GET', `/ssf/streams?stream_id=${created.body.stream_id}`],
      ['GET', `/ssf/status?stream_id=${created.body.stream_id}`],
      ['DELETE', `/ssf/streams?stream_id=${created.body.stream_id}`],
    ])
      expect((await call(other, method, path)).status, `${method} ${path}`).toBe(404);
    expect((await call(other, 'POST', '/ssf/verify', { stream_id: created.body.stream_id })).status).toBe(404);
    expect((await call(other, 'GET', '/ssf/streams')).body).toEqual([]);
    expect((await call(mine, 'DELETE', `/ssf/streams?stream_id=${created.body.stream_id}`)).status).toBe(204);
  });

  it('creates, reads, updates, replaces and deletes streams; at most five per client', async () => {
    const token = await ssfToken(server, 'demo-app-post');
    const created = await call(token, 'POST', '/ssf/streams', {
      events_requested: [`${CAEP}session-revoked`, `${RISC}account-disabled`, 'urn:example:unknown'],
      description: 'poll stream',
    });
    expect(created.status).toBe(201);
    const id = created.body.stream_id;
    expect(created.body).toMatchObject({
      iss: server.url,
      aud: 'demo-app-post',
      delivery: { method: 'urn:ietf:rfc:8936', endpoint_url: `${server.url}/ssf/poll/${id}` },
      events_delivered: [`${CAEP}session-revoked`, `${RISC}account-disabled`],
      min_verification_interval: 30,
      description: 'poll stream',
    });
    expect(created.body.events_supported).toContain(`${CAEP}credential-change`);
    expect((await call(token, 'GET', `/ssf/streams?stream_id=${id}`)).body).toEqual(created.body);
    const patched = await call(token, 'PATCH', '/ssf/streams', { stream_id: id, description: 'renamed' });
    expect(patched.body).toMatchObject({ description: 'renamed', events_delivered: created.body.events_delivered });
    expect((await call(token, 'PATCH', '/ssf/streams', { stream_id: id, iss: 'https://other' })).status).toBe(400);
    const replaced = await call(token, 'PUT', '/ssf/streams', {
      stream_id: id,
      events_requested: [`${CAEP}credential-change`],
    });
    expect(replaced.body.events_delivered).toEqual([`${CAEP}credential-change`]);
    expect(replaced.body.description).toBeUndefined();
    for (let i = 0; i < 4; i++) expect((await call(token, 'POST', '/ssf/streams', {})).status).toBe(201);
    const sixth = await call(token, 'POST', '/ssf/streams', {});
    expect(sixth.status).toBe(403);
    expect(sixth.body.error).toBe('invalid_request');
    const list = (await call(token, 'GET', '/ssf/streams')).body as any[];
    expect(list).toHaveLength(5);
    for (const s of list)
      expect((await call(token, 'DELETE', `/ssf/streams?stream_id=${s.stream_id}`)).status).toBe(204);
    expect((await call(token, 'GET', `/ssf/streams?stream_id=${id}`)).status).toBe(404);
    for (const body of [[], { delivery: { method: 'urn:x' } }, { events_requested: 'x' }, { description: 7 }])
      expect((await call(token, 'POST', '/ssf/streams', body)).status, JSON.stringify(body)).toBe(400);
  });

  it('delivers by poll only events about its subjects, redelivers until acknowledged, and never after', async () => {
    const token = await ssfToken(server, 'machine-client');
    const { stream_id } = (
      await call(token, 'POST', '/ssf/streams', {
        events_requested: [`${CAEP}credential-change`, `${RISC}account-disabled`],
      })
    ).body;
    const alice = { format: 'email', email: 'alice@example.com' };
    const emit = (subject: unknown, event_type = `${RISC}account-disabled`, event: unknown = { reason: 'hijacking' }) =>
      call(token, 'POST', '/ssf/events', { event_type, subject, event });
    expect((await emit(alice)).body.queued).toEqual([]);
    expect((await call(token, 'POST', '/ssf/subjects:add', { stream_id, subject: alice })).status).toBe(200);
    expect((await emit({ format: 'email', email: 'bob@example.com' })).body.queued).toEqual([]);
    const sent = await emit(alice);
    expect(sent.status).toBe(202);
    expect(sent.body.queued).toHaveLength(1);
    const poll = (body: unknown) => call(token, 'POST', `/ssf/poll/${stream_id}`, body);
    const first = (await poll({ returnImmediately: true })).body;
    const jtis = Object.keys(first.sets);
    expect(jtis).toEqual([sent.body.queued[0].jti]);
    const payload = await verifySet(first.sets[jtis[0]], 'machine-client');
    expect(decodeProtectedHeader(first.sets[jtis[0]]).typ).toBe('secevent+jwt');
    expect(payload).toMatchObject({
      jti: jtis[0],
      sub_id: alice,
      events: { [`${RISC}account-disabled`]: { reason: 'hijacking' } },
    });
    expect(Object.keys((await poll({ returnImmediately: true })).body.sets)).toEqual(jtis);
    expect((await poll({ returnImmediately: true, ack: jtis })).body.sets).toEqual({});
    expect((await poll({ returnImmediately: true })).body.sets).toEqual({});
    // A long poll returns as soon as a SET is made.
    const waiting = poll({});
    await new Promise((resolve) => setTimeout(resolve, 50));
    await emit(alice, `${CAEP}credential-change`, { credential_type: 'verifiable-credential', change_type: 'revoke' });
    const woken = (await waiting).body;
    expect(Object.keys(woken.sets)).toHaveLength(1);
    expect(decodeJwt(Object.values(woken.sets)[0] as string).events).toHaveProperty(`${CAEP}credential-change`);
    await poll({ returnImmediately: true, ack: Object.keys(woken.sets) });
    // Issue 45 item 36: at most two long polls wait on a stream; a third is 429 at once, without Retry-After.
    const held = [poll({}), poll({})];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const third = await poll({});
    expect([third.status, third.body.error, third.headers.get('retry-after')]).toEqual([429, 'rate_limited', null]);
    expect(third.body.error_description).toMatch(/returnImmediately/);
    expect((await poll({ returnImmediately: true })).status).toBe(200);
    await emit(alice);
    const answered = await Promise.all(held);
    expect(answered.map((a) => a.status)).toEqual([200, 200]);
    await poll({ returnImmediately: true, ack: Object.keys(answered[0]!.body.sets) });
    // Their places are given back once they answered.
    const again = poll({});
    await new Promise((resolve) => setTimeout(resolve, 50));
    await emit(alice);
    expect((await again).status).toBe(200);
    for (const bad of [
      { event_type: 'urn:unknown', subject: alice, event: {} },
      { event_type: `${CAEP}credential-change`, subject: alice, event: { credential_type: 'verifiable-credential' } },
      {
        event_type: `${CAEP}credential-change`,
        subject: alice,
        event: { credential_type: 'x', change_type: 'revoke' },
      },
      { event_type: `${RISC}account-disabled`, subject: { format: 'email' }, event: {} },
      { event_type: `${RISC}account-disabled`, subject: alice, event: { other: 1 } },
    ])
      expect((await call(token, 'POST', '/ssf/events', bad)).body.error, JSON.stringify(bad)).toBe('invalid_request');
    expect((await poll({ maxEvents: -1 })).status).toBe(400);
  });

  it('pauses (holding events), resumes (delivering them), disables (dropping them); each change a stream-updated SET', async () => {
    const token = await ssfToken(server, 'demo-app-post');
    const { stream_id } = (await call(token, 'POST', '/ssf/streams', { events_requested: [`${RISC}account-enabled`] }))
      .body;
    const bob = { format: 'iss_sub', iss: server.url, sub: 'bob' };
    await call(token, 'POST', '/ssf/subjects:add', { stream_id, subject: bob });
    const poll = async (ack: string[] = []) =>
      (await call(token, 'POST', `/ssf/poll/${stream_id}`, { returnImmediately: true, ack })).body.sets as Record<
        string,
        string
      >;
    const types = (sets: Record<string, string>) =>
      Object.values(sets).map((s) => Object.keys(decodeJwt(s).events as object)[0]);
    expect(
      (await call(token, 'POST', '/ssf/status', { stream_id, status: 'paused', reason: 'maintenance' })).body,
    ).toEqual({ stream_id, status: 'paused', reason: 'maintenance' });
    await call(token, 'POST', '/ssf/events', { event_type: `${RISC}account-enabled`, subject: bob, event: {} });
    const whilePaused = await poll();
    expect(types(whilePaused)).toEqual(['https://schemas.openid.net/secevent/ssf/event-type/stream-updated']);
    const notice = decodeJwt(Object.values(whilePaused)[0]);
    expect(notice).toMatchObject({ sub_id: { format: 'opaque', id: stream_id } });
    await call(token, 'POST', '/ssf/status', { stream_id, status: 'enabled' });
    const resumed = await poll(Object.keys(whilePaused));
    expect(types(resumed).sort()).toEqual(
      [`${RISC}account-enabled`, 'https://schemas.openid.net/secevent/ssf/event-type/stream-updated'].sort(),
    );
    await poll(Object.keys(resumed));
    await call(token, 'POST', '/ssf/status', { stream_id, status: 'disabled' });
    await call(token, 'POST', '/ssf/events', { event_type: `${RISC}account-enabled`, subject: bob, event: {} });
    expect(types(await poll())).toEqual(['https://schemas.openid.net/secevent/ssf/event-type/stream-updated']);
    expect((await call(token, 'GET', `/ssf/status?stream_id=${stream_id}`)).body.status).toBe('disabled');
    expect((await call(token, 'POST', '/ssf/status', { stream_id, status: 'off' })).status).toBe(400);
    expect((await call(token, 'POST', '/ssf/subjects:remove', { stream_id, subject: bob })).status).toBe(200);
    expect((await call(token, 'POST', '/ssf/subjects:remove', { stream_id, subject: bob })).status).toBe(404);
    expect((await call(token, 'POST', '/ssf/subjects:add', { stream_id, subject: { format: 'complex' } })).status).toBe(
      400,
    );
  });

  it('sends a verification SET with its state, and answers 429 within min_verification_interval', async () => {
    const token = await ssfToken(server, 'demo-app');
    const { stream_id } = (await call(token, 'POST', '/ssf/streams', {})).body;
    expect((await call(token, 'POST', '/ssf/verify', { stream_id, state: 'abc' })).status).toBe(204);
    const again = await call(token, 'POST', '/ssf/verify', { stream_id });
    expect(again.status).toBe(429);
    // Spec §7: no Retry-After anywhere; the description says when (issue 45 item 5).
    expect(again.headers.get('retry-after')).toBeNull();
    server.clock.advance(30_000);
    expect((await call(token, 'POST', '/ssf/verify', { stream_id })).status).toBe(204);
    const sets = (await call(token, 'POST', `/ssf/poll/${stream_id}`, { returnImmediately: true })).body.sets;
    const payloads = await Promise.all(Object.values(sets).map((s) => verifySet(s as string, 'demo-app')));
    expect(payloads.map((p) => p.events['https://schemas.openid.net/secevent/ssf/event-type/verification'])).toEqual([
      { state: 'abc' },
      {},
    ]);
    expect(payloads[0].sub_id).toEqual({ format: 'opaque', id: stream_id });
  });
});
