import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../services/clock.ts';
import { exchange, startMainServer, type TestServer } from '../../support/main-server.ts';
import { ssfToken } from '../../support/ssf.ts';

// Issue 46 §4: push retries are scheduled from the log (attempt, next time, failing since). A restart
// resumes them: the attempts go on counting, and the 24-hour give-up counts from the first failure,
// not from the restart (the in-memory schedule they replaced started again at attempt 1).
let receiver: Server;
let receiverUrl: string;
let dataDir: string;
const clock = new ManualClock(Date.now());
beforeAll(async () => {
  receiver = createServer((_request, response) => response.writeHead(503).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/events`;
  dataDir = mkdtempSync(join(tmpdir(), 'ssf-restart-'));
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

const start = (port?: number) =>
  startMainServer({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' }, dataDir, clock, ...(port ? { port } : {}) });
const call = async (server: TestServer, method: string, path: string, body?: unknown) =>
  exchange(server.url, path, {
    method,
    headers: {
      authorization: `Bearer ${await ssfToken(server)}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
const failures = async (server: TestServer, streamId: string) =>
  (await server.main.ctx.log.readStream(`ssf-stream:${streamId}`))
    .filter((e) => e.type === 'ssf.delivery_failed')
    .map((e) => e.data as { attempt: number; failing_since?: number });
/** Polls real time (the worker's wake-ups are real timers), moving the manual clock a step each time. */
async function until(check: () => Promise<boolean>, stepMs: number) {
  for (let i = 0; i < 1500 && !(await check()); i++) {
    clock.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(await check()).toBe(true);
}

describe('push retries across a restart', () => {
  it('go on from the attempt the log recorded, and give up a day after the first failure', async () => {
    let server = await start();
    const port = Number(new URL(server.url).port);
    const { stream_id } = (
      await call(server, 'POST', '/ssf/streams', {
        delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: receiverUrl },
      })
    ).body as { stream_id: string };
    expect((await call(server, 'POST', '/ssf/verify', { stream_id })).status).toBe(204);
    await until(async () => (await failures(server, stream_id)).length >= 2, 2_000);
    const before = await failures(server, stream_id);
    const since = before[0].failing_since;
    expect(since).toBeDefined();
    await server.close({ keepData: true });

    server = await start(port);
    await until(async () => (await failures(server, stream_id)).length > before.length, 2_000);
    const after = await failures(server, stream_id);
    expect(after.map((f) => f.attempt)).toEqual(after.map((_, i) => i + 1));
    expect(after.at(-1)!.failing_since).toBe(since);

    // A day after the first failure (not after the restart) the stream is disabled, saying why.
    clock.advance(24 * 3600_000);
    await until(
      async () => (await call(server, 'GET', `/ssf/status?stream_id=${stream_id}`)).body.status === 'disabled',
      60_000,
    );
    await server.close({ keepData: true });
  });
});
