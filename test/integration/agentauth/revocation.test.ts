import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSseMessages } from '../../support/sse.ts';
import { CLOCK_SKEW_S } from '../../../services/crypto/time-claims.ts';
import { form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const EVENT = 'https://schemas.portico.com/events/agent/auth/identity/assertion/revoked';

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const post = (path: string, init: RequestInit) => fetch(server.url + path, init);
const register = async () =>
  (await post('/agentauth/identity', json({ type: 'anonymous' }))).json() as Promise<Record<string, string>>;
const token = async (assertion: string) =>
  (await post('/agentauth/token', form({ grant_type: JWT_BEARER, assertion }))).json() as Promise<
    Record<string, string>
  >;
const revoke = (tokenValue: string) => post('/agentauth/revoke', form({ token: tokenValue }));
const eventCount = async () => ({
  n: (await server.main.ctx.log.readAll(0, 1_000_000)).filter((e) => e.type === 'agent.revoked').length,
});

/** Reads SSE messages until `count` `set` events have arrived. */
async function readSse(path: string, count: number, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(server.url + path, { headers, signal: controller.signal });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  return (await readSseMessages(res, count, 'set', controller)).map((m) => ({ id: m.id!, data: m.data }));
}

describe('revocation', () => {
  it('answers 200 with an empty body whether or not the token is recognised (RFC 7009 2.2)', async () => {
    for (const value of ['unknown', 'x'.repeat(500), '']) {
      const res = await revoke(value);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
    }
    // A request without the token parameter at all is malformed (RFC 7009 2.1: token is REQUIRED).
    const missing = await post('/agentauth/revoke', form({ token_type_hint: 'claim_token' }));
    expect([missing.status, (await missing.json()).error]).toEqual([400, 'invalid_request']);
  });

  it('stops redemption and claiming, keeps issued access tokens valid, and appends exactly one event', async () => {
    const reg = await register();
    const spare = await register(); // an unrelated agent stays untouched
    const access = await token(reg.identity_assertion);
    const before = (await eventCount()).n;
    expect((await revoke(reg.claim_token)).status).toBe(200);
    expect((await revoke(reg.claim_token)).status).toBe(200);
    expect((await eventCount()).n).toBe(before + 1);

    const again = await register();
    void again;
    const claim = await post(
      '/agentauth/identity/claim',
      json({ claim_token: reg.claim_token, email: 'a@example.com' }),
    );
    expect((await claim.json()).error).toBe('invalid_grant');

    const me = await fetch(`${server.url}/agentauth/me`, {
      headers: { authorization: `Bearer ${access.access_token}` },
    });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ agent_id: reg.agent_id, revoked: true });

    // Past the token's hour and the 15 s clock skew every access-token check allows (issue 46 §2).
    server.clock.advance(3_600_000 + (CLOCK_SKEW_S + 1) * 1000);
    const expired = await fetch(`${server.url}/agentauth/me`, {
      headers: { authorization: `Bearer ${access.access_token}` },
    });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect((await token(spare.identity_assertion)).error).toBe('invalid_grant'); // expired by now, not revoked
  });

  it('a revoked agent cannot redeem a still-fresh assertion', async () => {
    const reg = await register();
    await revoke(reg.claim_token);
    expect((await token(reg.identity_assertion)).error).toBe('invalid_grant');
  });

  it('publishes each revocation as a signed SET over SSE, resumable with Last-Event-ID, and by RFC 8936 poll', async () => {
    const a = await register();
    const b = await register();
    const receiver = await register();
    const access = (await token(receiver.identity_assertion)).access_token;
    await revoke(a.claim_token);

    const jwks = createLocalJWKSet((await (await fetch(`${server.url}/agentauth/jwks`)).json()) as never);
    const first = await readSse('/agentauth/events', (await eventCount()).n);
    const last = first[first.length - 1];
    const { payload, protectedHeader } = await jwtVerify(last.data, jwks, {
      issuer: `${server.url}/agentauth`,
      typ: 'secevent+jwt',
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.events).toEqual({ [EVENT]: { subject: { format: 'opaque', id: a.agent_id } } });

    // Resume after the last seen id: only the next revocation arrives.
    const pending = readSse('/agentauth/events', 1, { 'last-event-id': last.id });
    await revoke(b.claim_token);
    const [next] = await pending;
    expect(Number(next.id)).toBeGreaterThan(Number(last.id));
    const nextPayload = (await jwtVerify(next.data, jwks)).payload as {
      events: Record<string, { subject: { id: string } }>;
    };
    expect(nextPayload.events[EVENT].subject.id).toBe(b.agent_id);

    // Poll delivery: both SETs, then ack one, then only the other remains.
    const poll = (body: unknown) => post('/agentauth/events/poll', json(body, { authorization: `Bearer ${access}` }));
    const all = await (await poll({ returnImmediately: true })).json();
    const jtis = Object.keys(all.sets);
    expect(jtis.length).toBeGreaterThanOrEqual(2);
    expect(all.moreAvailable).toBe(false);
    const ofA = jtis.find(
      (j) =>
        decodeProtectedHeader(all.sets[j]) &&
        JSON.stringify(all.sets[j]) &&
        JSON.parse(Buffer.from(all.sets[j].split('.')[1], 'base64url').toString()).events[EVENT].subject.id ===
          a.agent_id,
    )!;
    const afterAck = await (await poll({ returnImmediately: true, ack: [ofA] })).json();
    expect(Object.keys(afterAck.sets)).not.toContain(ofA);
    expect(Object.keys(afterAck.sets).length).toBe(jtis.length - 1);
    const limited = await (await poll({ returnImmediately: true, maxEvents: 0 })).json();
    expect(limited).toEqual({ sets: {}, moreAvailable: true });

    const anonymous = await post('/agentauth/events/poll', json({ returnImmediately: true }));
    expect(anonymous.status).toBe(401);
  });
});

describe('restart', () => {
  it('refuses a replayed assertion across a restart and keeps every agent', async () => {
    const local = await startMainServer();
    const reg = (await (await fetch(`${local.url}/agentauth/identity`, json({ type: 'anonymous' }))).json()) as Record<
      string,
      string
    >;
    const fresh = (await (
      await fetch(`${local.url}/agentauth/identity`, json({ type: 'anonymous' }))
    ).json()) as Record<string, string>;
    const first = await fetch(
      `${local.url}/agentauth/token`,
      form({ grant_type: JWT_BEARER, assertion: reg.identity_assertion }),
    );
    expect(first.status).toBe(200);
    await local.main.close();

    const again = await startMainServer({
      dataDir: local.dataDir,
      clock: local.clock,
      port: Number(new URL(local.url).port),
    });
    try {
      const replay = await fetch(
        `${again.url}/agentauth/token`,
        form({ grant_type: JWT_BEARER, assertion: reg.identity_assertion }),
      );
      expect(replay.status).toBe(400);
      const other = await fetch(
        `${again.url}/agentauth/token`,
        form({ grant_type: JWT_BEARER, assertion: fresh.identity_assertion }),
      );
      expect(other.status).toBe(200);
    } finally {
      await again.close();
      rmSync(local.dataDir, { recursive: true, force: true });
    }
  });
});
