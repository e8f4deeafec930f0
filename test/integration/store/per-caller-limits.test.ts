import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { postgresAvailable, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { ssfToken } from '../../support/ssf.ts';
import { heldAnswers } from '../../support/target-server.ts';

// Issue 45 items 36 and 39: the per-caller limits (five Shared Signals streams per client, two targeted runs
// at once per address) are decided in one turn of the log, so two instances sharing one PostgreSQL cannot
// both take the last place. Before, each instance counted alone: eight creations split over two instances
// made up to eight streams, and four targeted runs all started.
let postgres: TestPostgres | undefined;
let dataDir: string;
let first: TestServer;
let second: TestServer;
let firstClosed = false;
let target: Server;
let base = '';
const { hold, release } = heldAnswers();

beforeAll(async () => {
  if (!postgresAvailable) return;
  // A target authorization server that holds its token answers until the test releases them.
  target = createServer((req, res) => {
    const send = (body: unknown) => () =>
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    if (req.url!.startsWith('/.well-known/')) return send({ issuer: base, token_endpoint: `${base}/token` })();
    hold(send({ access_token: 'opaque', token_type: 'Bearer', expires_in: 300 }));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(target.address() as { port: number }).port}`;
  postgres = await startPostgres();
  const env = {
    EVENT_STORE: 'postgres',
    DATABASE_URL: await postgres.database(),
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  dataDir = mkdtempSync(join(tmpdir(), 'portico-limits-'));
  [first, second] = [await startMainServer({ env, dataDir }), await startMainServer({ env, dataDir })];
}, 60_000);
afterAll(async () => {
  release();
  if (!firstClosed) await first?.close();
  await second?.close();
  await postgres?.stop();
  if (target) {
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

type Json = Record<string, any>;
/** A targeted run of the client-credentials flow against the holding target, answered at once (202). */
const start = (server: TestServer) =>
  exchange(
    server.url,
    '/api/protocols/oauth2/demo/client-credentials',
    json({ target: { issuer: base, client_id: 'c', client_secret: 's' } }, { prefer: 'respond-async' }),
  );

describe.skipIf(!postgresAvailable)('per-caller limits across two instances on one PostgreSQL', () => {
  it('eight concurrent stream creations of one client, four on each instance: exactly five streams', async () => {
    // Each test instance has an origin of its own: one token each, for the same client.
    const tokens = new Map([
      [first, await ssfToken(first, 'machine-client')],
      [second, await ssfToken(second, 'machine-client')],
    ]);
    const bearer = (server: TestServer) => ({ authorization: `Bearer ${tokens.get(server)!}` });
    const create = (server: TestServer) =>
      exchange(server.url, '/ssf/streams', json({ delivery: { method: 'urn:ietf:rfc:8936' } }, bearer(server)));
    const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i % 2 ? second : first)));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 201, 403, 403, 403]);
    const listed = await exchange(second.url, '/ssf/streams', { headers: bearer(second) });
    expect(listed.body).toHaveLength(5);

    // A stream deleted on one instance gives its place back to a creation on the other.
    const deleted = await exchange(
      first.url,
      `/ssf/streams?stream_id=${racing.find((r) => r.status === 201)!.body.stream_id as string}`,
      {
        method: 'DELETE',
        headers: bearer(first),
      },
    );
    expect(deleted.status).toBe(204);
    expect((await create(second)).status).toBe(201);
    expect((await create(first)).status).toBe(403);
  });

  it('four concurrent targeted runs from one address, two on each instance: exactly two start', async () => {
    const answers = await Promise.all([start(first), start(second), start(first), start(second)]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 429, 429]);
    expect(answers.find((a) => a.status === 429)!.body.error).toBe('rate_limited');

    // Once both end, the address may run again, on either instance.
    const started = answers.filter((a) => a.status === 202).map((a) => a.body as Json);
    const servers = answers.map((a, i) => (a.status === 202 ? [first, second, first, second][i]! : undefined));
    const owners = servers.filter((s): s is TestServer => s !== undefined);
    for (const [i, { run_id, run_token }] of started.entries())
      while (
        (
          await exchange(owners[i]!.url, `/api/runs/${run_id as string}`, {
            headers: { authorization: `Bearer ${run_token as string}` },
          })
        ).body.status === 'running'
      )
        release();
    const again = await start(second);
    expect(again.status).toBe(202);
    const { run_id, run_token } = again.body as Json;
    while (
      (
        await exchange(second.url, `/api/runs/${run_id as string}`, {
          headers: { authorization: `Bearer ${run_token as string}` },
        })
      ).body.status === 'running'
    )
      release();
  });

  it('the places of runs whose instance stopped are given back to the address on the other instance', async () => {
    const holding = [await start(first), await start(first)];
    expect(holding.map((a) => a.status)).toEqual([202, 202]);
    expect((await start(second)).status).toBe(429);
    await first.close();
    firstClosed = true;
    // The runs' instance is gone: their places are free again.
    const next = await start(second);
    expect(next.status, JSON.stringify(next.body)).toBe(202);
    for (const { run_id, run_token } of holding.map((a) => a.body as Json)) {
      const read = await exchange(second.url, `/api/runs/${run_id as string}`, {
        headers: { authorization: `Bearer ${run_token as string}` },
      });
      // Ended by its own runner as the instance closed (failed), or by the other instance (interrupted).
      expect(['failed', 'interrupted']).toContain(read.body.status);
    }
    release();
  });
});

describe.skipIf(!postgresAvailable)('the Shared Signals per-client window across two instances', () => {
  let a: TestServer;
  let b: TestServer;
  let dir: string;
  beforeAll(async () => {
    // Four calls a minute; each call comes from an address of its own (X-Forwarded-For from a trusted proxy),
    // so only the per-client window can refuse.
    const env = {
      EVENT_STORE: 'postgres',
      DATABASE_URL: await postgres!.database(),
      RATE_LIMIT_PER_MINUTE: '4',
      TRUST_PROXY: '127.0.0.1',
    };
    dir = mkdtempSync(join(tmpdir(), 'portico-window-'));
    [a, b] = [await startMainServer({ env, dataDir: dir }), await startMainServer({ env, dataDir: dir })];
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("counts one client's calls on both instances against one window", async () => {
    let address = 10;
    const from = () => ({ 'x-forwarded-for': `192.0.2.${address++}` });
    const token = async (server: TestServer) => {
      const answer = await exchange(
        server.url,
        '/oauth2/token',
        form(
          { grant_type: 'client_credentials', scope: 'ssf' },
          {
            authorization: `Basic ${Buffer.from('machine-client:machine-client-secret').toString('base64')}`,
            ...from(),
          },
        ),
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.access_token as string;
    };
    const tokens = new Map([
      [a, await token(a)],
      [b, await token(b)],
    ]);
    const list = (server: TestServer) =>
      exchange(server.url, '/ssf/streams', { headers: { authorization: `Bearer ${tokens.get(server)!}`, ...from() } });
    const answers = [];
    for (const server of [a, b, a, b, a, b]) answers.push(await list(server));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(answers[4]!.body.error_description).toContain('Shared Signals calls a minute from this client');
  });
});
