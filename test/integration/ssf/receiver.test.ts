import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 35: our own receiver end to end: a push stream to it, verify, a triggered event received and
// checked; and every refusal of RFC 8935 (wrong header, typ, key, iss, aud, replay).
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const call = (bearer: string, path: string, body: unknown) =>
  exchange(server.url, path, json(body, { authorization: `Bearer ${bearer}` }));
const view = async (id: string) =>
  (await exchange(server.url, `/ssf/receivers/${id}`, { method: 'GET', headers: { accept: 'application/json' } })).body;
const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await check()).toBe(true);
};

describe("Portico's SET receiver", () => {
  it('receives a push stream end to end: create, verify, trigger, received and checked', async () => {
    const receiver = await exchange(server.url, '/ssf/receivers', json({ audience: 'machine-client' }));
    expect(receiver.status).toBe(201);
    expect(receiver.body).toMatchObject({
      transmitter: server.url,
      endpoint_url: `${server.url}/ssf/receiver/${receiver.body.receiver_id}/events`,
    });
    const bearer = await ssfToken(server);
    const { stream_id } = (
      await call(bearer, '/ssf/streams', {
        delivery: {
          method: 'urn:ietf:rfc:8935',
          endpoint_url: receiver.body.endpoint_url,
          authorization_header: receiver.body.authorization_header,
        },
        events_requested: [`${RISC}account-disabled`],
      })
    ).body;
    expect((await call(bearer, '/ssf/verify', { stream_id, state: 'hello' })).status).toBe(204);
    const subject = { format: 'email', email: 'carol@example.com' };
    await call(bearer, '/ssf/subjects:add', { stream_id, subject });
    await call(bearer, '/ssf/events', {
      event_type: `${RISC}account-disabled`,
      subject,
      event: { reason: 'bulk-account' },
    });
    await until(async () => (await view(receiver.body.receiver_id)).received.length >= 2);
    const seen = (await view(receiver.body.receiver_id)).received;
    expect(seen.map((r: any) => r.verdict)).toEqual(['accepted', 'accepted']);
    expect(seen[1].event_types).toEqual(['https://schemas.openid.net/secevent/ssf/event-type/verification']);
    expect(seen[1].claims.events['https://schemas.openid.net/secevent/ssf/event-type/verification']).toEqual({
      state: 'hello',
    });
    expect(seen[0]).toMatchObject({ event_types: [`${RISC}account-disabled`], sub_id: subject });
    const page = await fetch(`${server.url}/ssf/receivers/${receiver.body.receiver_id}`, {
      headers: { accept: 'text/markdown' },
    });
    const markdown = await page.text();
    expect(markdown).toContain('accepted (202)');
    // Issue 45 item 14: each received event is shown decoded, its type and every field.
    expect(markdown).toContain('`https://schemas.openid.net/secevent/ssf/event-type/verification`');
    expect(markdown).toMatch(/state: `"hello"`/);
    expect(markdown).toMatch(/reason: `"bulk-account"`/);
    const html = await (await fetch(`${server.url}/ssf/receivers/${receiver.body.receiver_id}`)).text();
    expect(html).toContain('&quot;hello&quot;');
  });

  // Issue 45 item 39: our own origin is a push destination only at a receiver's events endpoint.
  it('refuses a push stream to any other path of our own origin (destination_not_allowed)', async () => {
    const bearer = await ssfToken(server);
    const push = (endpoint_url: string) =>
      call(bearer, '/ssf/streams', {
        delivery: { method: 'urn:ietf:rfc:8935', endpoint_url },
        events_requested: [`${RISC}account-disabled`],
      });
    for (const path of [
      '/oauth2/token',
      '/ssf/receivers',
      '/ssf/receiver/abc/events?x=1',
      '/ssf/receiver/abc/events/more',
      '/ssf/receiver/../oauth2/token',
      '/api/protocols/oauth2/demo/client-credentials',
    ]) {
      const refused = await push(`${server.url}${path}`);
      expect([path, refused.status, refused.body.error]).toEqual([path, 400, 'destination_not_allowed']);
    }
    const receiver = await exchange(server.url, '/ssf/receivers', json({ audience: 'machine-client' }));
    const admitted = await push(receiver.body.endpoint_url);
    expect(admitted.status).toBe(201);
    await exchange(server.url, `/ssf/streams?stream_id=${admitted.body.stream_id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${bearer}` },
    });
  });

  it('refuses with RFC 8935 errors: wrong header, media type, typ, key, iss, aud, replay', async () => {
    const receiver = (await exchange(server.url, '/ssf/receivers', json({ audience: 'rp' }))).body;
    const push = (body: string, headers: Record<string, string> = {}) =>
      exchange(server.url, `/ssf/receiver/${receiver.receiver_id}/events`, {
        method: 'POST',
        headers: {
          authorization: receiver.authorization_header,
          'content-type': 'application/secevent+jwt',
          ...headers,
        },
        body,
      });
    const stranger = await generateKeyPair('ES256');
    const make = (claims: Record<string, unknown>, typ = 'secevent+jwt', key: CryptoKey = stranger.privateKey) =>
      new SignJWT({ events: { [`${RISC}account-enabled`]: {} }, sub_id: { format: 'opaque', id: 'x' }, ...claims })
        .setProtectedHeader({ alg: 'ES256', typ })
        .sign(key);
    const good = { iss: server.url, aud: 'rp', jti: 'j1', iat: 1 };
    expect((await push(await make(good), { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await push(await make(good), { authorization: 'Bearer wrong' })).body.err).toBe('authentication_failed');
    expect((await push(JSON.stringify('x.y.z'), { 'content-type': 'application/json' })).body.err).toBe(
      'invalid_request',
    );
    expect((await push(await make(good, 'JWT'))).body.err).toBe('invalid_request');
    expect((await push(await make(good))).body.err).toBe('invalid_key');
    // Signed by our own transmitter key, as the server would: iss, aud and replay are what fail.
    const ours = server.main.ctx.keys.signing('oidc', 'ES256');
    const signed = (claims: Record<string, unknown>) =>
      new SignJWT({ events: { [`${RISC}account-enabled`]: {} }, sub_id: { format: 'opaque', id: 'x' }, ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'secevent+jwt', kid: ours.kid })
        .sign(ours.privateKey);
    expect((await push(await signed({ ...good, iss: 'https://elsewhere' }))).body.err).toBe('invalid_issuer');
    expect((await push(await signed({ ...good, aud: 'someone-else' }))).body.err).toBe('invalid_audience');
    const once = await signed(good);
    expect((await push(once)).status).toBe(202);
    const replay = await push(once);
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ err: 'invalid_request', description: expect.stringMatching(/replay/) });
    // Issue 45 item 10: both contracts hold, RFC 8935's and the service's.
    expect(replay.body).toMatchObject({ error: 'invalid_request', error_description: replay.body.description });
    const views = (await view(receiver.receiver_id)).received;
    expect(views.map((r: any) => r.err ?? r.verdict)).toEqual([
      'invalid_request',
      'accepted',
      'invalid_audience',
      'invalid_issuer',
      'invalid_key',
      'invalid_request',
      'invalid_request',
    ]);
    expect((await exchange(server.url, '/ssf/receivers/nope', { method: 'GET' })).status).toBe(404);
    expect((await exchange(server.url, '/ssf/receivers', json({}))).status).toBe(400);
  });
});
