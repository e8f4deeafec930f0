import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildMain } from '../../support/child-main.ts';
import { postgresAvailable, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { readSseMessages } from '../../support/sse.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../support/round-robin-proxy.ts';
import { freePort } from '../../support/wallet-server.ts';

/**
 * Issue 20: two gateway processes (`npm start -- main`) on one PostgreSQL and one shared DATA_DIR,
 * behind a round-robin proxy on loopback. Each case drives the instances through the proxy, pinning a
 * request to an instance (`x-upstream`) where the case is about crossing from one to the other.
 */
const ROOT = new URL('../../../', import.meta.url).pathname;
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLAIM_GRANT = 'urn:portico:agent-auth:grant-type:claim';
const RATE_LIMIT = 60;

let server: TestPostgres;
let databaseUrl: string;
let dataDir: string;
let proxy: RoundRobinProxy;
let ports: number[];
const instances: ChildProcess[] = [];

const envOf = (proxyUrl: string) => ({
  EVENT_STORE: 'postgres',
  DATABASE_URL: databaseUrl,
  DATA_DIR: dataDir,
  BASE_URL: proxyUrl,
  TRUST_PROXY: '127.0.0.1',
  RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
  DPOP_NONCE_REQUIRED: 'true',
});

beforeAll(async () => {
  if (!postgresAvailable) return;
  server = await startPostgres();
  databaseUrl = await server.database();
  dataDir = mkdtempSync(join(tmpdir(), 'portico-instances-'));
  ports = [await freePort(), await freePort()];
  const proxyPort = await freePort();
  const env = envOf(`http://127.0.0.1:${proxyPort}`);
  // Started together on an empty DATA_DIR: one provisions keys and certificates, the other waits and reads them.
  instances.push(...(await Promise.all(ports.map((port) => startChildMain(port, env)))));
  proxy = await startRoundRobinProxy(ports, proxyPort);
}, 120_000);

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
afterAll(async () => {
  await proxy?.close();
  const stopping = instances.filter(running).map((child) => new Promise((r) => child.once('exit', r)));
  for (const child of instances.filter(running)) child.kill('SIGTERM');
  await Promise.all(stopping);
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

type Answer = { status: number; headers: Headers; body: any };
async function call(path: string, init: RequestInit & { on?: number; ip?: string } = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (init.on !== undefined) headers.set('x-upstream', String(init.on));
  if (init.ip) headers.set('x-client-ip', init.ip);
  const res = await fetch(proxy.url + path, { ...init, headers });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, headers: res.headers, body };
}
const postJson = (path: string, value: unknown, on?: number) =>
  call(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value), on });
const postForm = (path: string, fields: Record<string, string>, on?: number, headers: Record<string, string> = {}) =>
  call(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
    on,
  });
const register = (on?: number) => postJson('/agentauth/identity', { type: 'anonymous' }, on);

/** Reads `set` events from an SSE stream on one instance until `count` arrived. */
async function readSets(on: number, count: number, lastEventId?: string): Promise<Array<{ id: string; data: string }>> {
  const controller = new AbortController();
  const res = await fetch(`${proxy.url}/agentauth/events`, {
    headers: { 'x-upstream': String(on), ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  return (await readSseMessages(res, count, 'set', controller)).map((m) => ({ id: m.id!, data: m.data }));
}

const subjectOf = (set: string) =>
  (
    JSON.parse(Buffer.from(set.split('.')[1], 'base64url').toString()) as {
      events: Record<string, { subject: { id: string } }>;
    }
  ).events;

describe.skipIf(!postgresAvailable)('two gateway instances on one PostgreSQL behind a proxy', () => {
  it('provisioned once: both instances publish the same keys and the same IACA', async () => {
    const [a, b] = [await call('/agentauth/jwks', { on: 0 }), await call('/agentauth/jwks', { on: 1 })];
    expect(a.body.keys.length).toBeGreaterThan(0);
    expect(b.body).toEqual(a.body);
    expect((await call('/oid4vci/iaca.pem', { on: 1 })).body).toBe((await call('/oid4vci/iaca.pem', { on: 0 })).body);
  });

  it('the whole agent ceremony with each step on the other instance; reads are current wherever they land', async () => {
    const reg = await register(0);
    expect(reg.status).toBe(201);
    const token = await postForm(
      '/agentauth/token',
      { grant_type: JWT_BEARER, assertion: reg.body.identity_assertion },
      1,
    );
    expect([token.status, token.body.scope]).toEqual([200, 'agent:read']);
    const bearer = { authorization: `Bearer ${token.body.access_token}` };
    expect((await call('/agentauth/me', { headers: bearer, on: 0 })).body).toMatchObject({
      agent_id: reg.body.agent_id,
      claimed: false,
    });
    const claim = await postJson(
      '/agentauth/identity/claim',
      { claim_token: reg.body.claim_token, email: 'person@example.com' },
      1,
    );
    expect(claim.status).toBe(200);
    expect(
      (await postForm('/agentauth/claim', { user_code: claim.body.user_code, decision: 'approve' }, 0)).status,
    ).toBe(200);
    const granted = await postForm(
      '/agentauth/token',
      { grant_type: CLAIM_GRANT, claim_token: reg.body.claim_token },
      1,
    );
    expect([granted.status, granted.body.scope]).toEqual([200, 'agent:read agent:write']);
    // The code was used on B a moment ago: A, which served the approval, knows.
    expect(
      (await postForm('/agentauth/token', { grant_type: CLAIM_GRANT, claim_token: reg.body.claim_token }, 0)).body
        .error,
    ).toBe('invalid_grant');
    const write = await postForm(
      '/agentauth/token',
      { grant_type: JWT_BEARER, assertion: granted.body.identity_assertion },
      0,
    );
    expect(write.body.scope).toBe('agent:read agent:write');
    // A cached this agent as unclaimed when it served /me; it is claimed now.
    expect((await call('/agentauth/me', { headers: bearer, on: 0 })).body).toMatchObject({
      agent_id: reg.body.agent_id,
      claimed: true,
      owner_email: 'person@example.com',
    });
    expect(
      (await call('/agentauth/me', { headers: { authorization: `Bearer ${write.body.access_token}` }, on: 1 })).body,
    ).toMatchObject({ claimed: true, scope: 'agent:read agent:write' });
  });

  it('the same assertion redeemed concurrently on both instances succeeds exactly once', async () => {
    for (let round = 0; round < 5; round++) {
      const reg = await register(round % 2);
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          postForm('/agentauth/token', { grant_type: JWT_BEARER, assertion: reg.body.identity_assertion }, i % 2),
        ),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 400 && a.body.error === 'invalid_grant')).toHaveLength(7);
    }
  });

  it('a revocation appended on A reaches an SSE stream on B, which resumes by sequence', async () => {
    const [first, second] = [await register(0), await register(0)];
    const listening = readSets(1, 1, await lastSetId());
    await new Promise((resolve) => setTimeout(resolve, 200)); // the stream is open before the revocation
    expect((await postForm('/agentauth/revoke', { token: first.body.claim_token }, 0)).status).toBe(200);
    const [live] = await listening;
    expect(Object.values(subjectOf(live.data))[0].subject.id).toBe(first.body.agent_id);
    expect((await postForm('/agentauth/revoke', { token: second.body.claim_token }, 0)).status).toBe(200);
    const [resumed] = await readSets(1, 1, live.id);
    expect(Object.values(subjectOf(resumed.data))[0].subject.id).toBe(second.body.agent_id);
    expect(Number(resumed.id)).toBeGreaterThan(Number(live.id));
  });

  it('the rate limit is counted across both instances', async () => {
    const ip = '203.0.113.7';
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT + 10; i++) statuses.push((await call('/api/protocols', { on: i % 2, ip })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(RATE_LIMIT);
    expect(statuses.slice(RATE_LIMIT)).toEqual(Array(10).fill(429));
    expect((await call('/api/protocols', { on: 0, ip: '203.0.113.8' })).status).toBe(200); // another address has its own window
    // A burst from one address, all at once on both instances: counted together, still exactly the limit.
    const burst = await Promise.all(
      Array.from({ length: RATE_LIMIT + 20 }, (_, i) => call('/api/protocols', { on: i % 2, ip: '203.0.113.9' })),
    );
    expect(burst.filter((a) => a.status === 200)).toHaveLength(RATE_LIMIT);
    expect(burst.filter((a) => a.status === 429)).toHaveLength(20);
    expect(burst.find((a) => a.status === 429)!.body.error).toBe('rate_limited');
  });

  it('a DPoP nonce from A is accepted on B', async () => {
    const keys = await generateKeyPair('ES256');
    const jwk = await exportJWK(keys.publicKey);
    const htu = `${proxy.url}/oauth2/token`;
    const proof = (nonce?: string) =>
      new SignJWT({
        jti: randomBytes(12).toString('base64url'),
        iat: Math.floor(Date.now() / 1000),
        htm: 'POST',
        htu,
        ...(nonce ? { nonce } : {}),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(keys.privateKey);
    const basic = { authorization: `Basic ${Buffer.from('machine-client:machine-client-secret').toString('base64')}` };
    const first = await postForm('/oauth2/token', { grant_type: 'client_credentials' }, 0, {
      ...basic,
      dpop: await proof(),
    });
    expect([first.status, first.body.error]).toEqual([400, 'use_dpop_nonce']);
    const nonce = first.headers.get('dpop-nonce')!;
    const second = await postForm('/oauth2/token', { grant_type: 'client_credentials' }, 1, {
      ...basic,
      dpop: await proof(nonce),
    });
    expect([second.status, second.body.token_type]).toEqual([200, 'DPoP']);
  });

  it('a credential offer made on A is served by reference on B, with the same pre-authorized code', async () => {
    const made = await postJson(
      '/oid4vci/offers',
      { credential_configuration_ids: ['UniversityDegreeCredentialHAIP'] },
      0,
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const fetched = await call(new URL(made.body.credential_offer_uri).pathname, { on: 1 });
    expect(fetched.status).toBe(200);
    expect(fetched.body.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code']).toBe(
      made.body.pre_authorized_code,
    );
    expect((await call(new URL(made.body.status_uri).pathname, { on: 0 })).body.status).toBe('offer_fetched');
  });

  it('a flow run under way on A is followed live over SSE on B', async () => {
    const started = await call('/api/protocols/agentauth/demo/register-and-claim', {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'respond-async' },
      body: '{}',
      on: 0,
    });
    expect(started.status).toBe(202);
    const res = await fetch(`${proxy.url}${started.body.events}`, { headers: { 'x-upstream': '1' } });
    const text = await res.text(); // the stream ends with the run
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(types[0]).toBe('run.started');
    expect(types.at(-1)).toBe('run.finished');
    expect(types.filter((t) => t === 'run.exchange_recorded').length).toBeGreaterThanOrEqual(7);
    expect(text).toContain('"status":"succeeded"');
  }, 30_000);

  it('a key rotation reaches both instances; tokens signed before it still verify', async () => {
    const before = await register(0);
    const rotated = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/rotate-keys.ts', 'agentauth'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(rotated.status, rotated.stderr).toBe(0);
    let published: any[] = [];
    for (let i = 0; i < 60 && published.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [a, b] = [await call('/agentauth/jwks', { on: 0 }), await call('/agentauth/jwks', { on: 1 })];
      if (a.body.keys.length === 2 && b.body.keys.length === 2) published = a.body.keys;
    }
    expect(published).toHaveLength(2);
    const after = await register(0);
    const newKid = decodeProtectedHeader(after.body.identity_assertion).kid;
    expect(newKid).not.toBe(decodeProtectedHeader(before.body.identity_assertion).kid);
    expect(newKid).toBe(published[1].kid);
    expect(
      (await postForm('/agentauth/token', { grant_type: JWT_BEARER, assertion: after.body.identity_assertion }, 1))
        .status,
    ).toBe(200);
    expect(
      (await postForm('/agentauth/token', { grant_type: JWT_BEARER, assertion: before.body.identity_assertion }, 1))
        .status,
    ).toBe(200);
  });

  it('SIGKILL of one instance under load loses no acknowledged event', async () => {
    const acknowledged: Array<{ agent_id: string; identity_assertion: string }> = [];
    let stop = false;
    // Answers other than 201 (a 502 from the proxy while A dies, a reset connection) are not acknowledgements.
    const writers = Promise.all(
      Array.from({ length: 6 }, async () => {
        while (!stop) {
          const res = await register().catch(() => undefined);
          if (res?.status === 201) acknowledged.push(res.body);
        }
      }),
    );
    while (acknowledged.length < 60) await new Promise((resolve) => setTimeout(resolve, 5));
    const victim = instances[0];
    const exited = new Promise((resolve) => victim.once('exit', resolve));
    victim.kill('SIGKILL');
    await exited;
    const atKill = acknowledged.length;
    while (acknowledged.length < atKill + 30) await new Promise((resolve) => setTimeout(resolve, 5)); // B carries on
    stop = true;
    await writers;
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const stored = new Set(
        (
          await db.query<{ stream_id: string }>("SELECT DISTINCT stream_id FROM events WHERE stream_id LIKE 'agent:%'")
        ).rows.map((r) => r.stream_id),
      );
      expect(acknowledged.filter((reg) => !stored.has(`agent:${reg.agent_id}`))).toEqual([]);
    } finally {
      await db.end();
    }
    for (const reg of acknowledged) {
      const redeem = () =>
        postForm('/agentauth/token', { grant_type: JWT_BEARER, assertion: reg.identity_assertion }, 1);
      expect((await redeem()).status, `first redemption of ${reg.agent_id}`).toBe(200);
      expect((await redeem()).status).toBe(400);
    }
  }, 120_000);
});

async function lastSetId(): Promise<string | undefined> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const row = (await db.query<{ s: string | null }>('SELECT max(sequence) AS s FROM revocation_feed')).rows[0];
    return row.s ?? undefined;
  } finally {
    await db.end();
  }
}
