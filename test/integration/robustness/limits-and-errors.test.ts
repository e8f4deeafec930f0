import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SSE_LIMITS } from '../../../adapters/http/sse.ts';
import { json, startMainServer, type TestServer, type TestServerOptions } from '../../support/main-server.ts';

// Issue 13 items 2, 3, 4, 6, 10 and 11, each over HTTP against the real server.
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const start = async (options: TestServerOptions = {}) => {
  server = await startMainServer(options);
  return server;
};

/** Sends raw bytes on one connection and collects what comes back until the server closes it. */
function rawExchange(url: string, bytes: string, options: { timeoutMs?: number } = {}): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close after ${options.timeoutMs ?? 5000} ms; received ${received.slice(0, 200)}`));
    }, options.timeoutMs ?? 5000);
    socket.on('data', (d) => (received += d.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

describe('rate limits are decided on the matched route (item 2)', () => {
  it('percent-encoded paths count against the same budget and are refused once it is spent', async () => {
    const s = await start({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    for (let i = 0; i < 3; i++) expect((await fetch(`${s.url}/api/protocols`)).status).toBe(200);
    expect((await fetch(`${s.url}/%61pi/protocols`)).status).toBe(429);
    expect((await fetch(`${s.url}/%61gentauth/identity`, json({ type: 'anonymous' }))).status).toBe(429);
    expect(
      (
        await fetch(`${s.url}/%6fauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        })
      ).status,
    ).toBe(429);
    expect((await fetch(`${s.url}/%61gentauth/claim`)).status).toBe(429);
    expect(
      (
        await fetch(`${s.url}/%61gentauth/claim`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'user_code=BBBB-BBBB&decision=approve',
        })
      ).status,
    ).toBe(429);
    // Pages, health and discovery stay free.
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    expect((await fetch(`${s.url}/`)).status).toBe(200);
  });

  it('an encoded path still counts before the budget is spent', async () => {
    const s = await start({ env: { RATE_LIMIT_PER_MINUTE: '2' } });
    expect((await fetch(`${s.url}/%61pi/protocols`)).status).toBe(200);
    expect((await fetch(`${s.url}/%61pi/protocols`)).status).toBe(200);
    expect((await fetch(`${s.url}/api/protocols`)).status).toBe(429);
  });
});

describe('flow runs and the limit (item 4)', () => {
  it('a run counts once against its caller; its own exchanges never count; the page route shares the limit', async () => {
    const s = await start({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    const run = await fetch(`${s.url}/api/protocols/oauth2/demo/refresh-token`, json({}));
    expect(run.status).toBe(201);
    const body = (await run.json()) as { status: string; exchanges: unknown[] };
    expect(body.status).toBe('succeeded');
    expect(body.exchanges.length).toBeGreaterThan(3);
    expect(JSON.stringify(body)).not.toContain('x-portico-internal');
    // One request spent by the run, so two remain.
    const next = await fetch(`${s.url}/api/protocols`);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await fetch(`${s.url}/api/protocols`)).status).toBe(200);
    // The page route that starts runs is refused with a styled page that says when to retry.
    const page = await fetch(`${s.url}/protocol/oauth2/flow/client-credentials/run`, {
      method: 'POST',
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('retry-after')).toBeNull();
    const html = await page.text();
    expect(html).toMatch(/Too many requests/);
    expect(html).toMatch(/try again in \d+ seconds/);
    expect(html).toContain('<style>');
  });

  it("the internal header is only honoured with the server's own secret", async () => {
    const s = await start({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    expect((await fetch(`${s.url}/api/protocols`, { headers: { 'x-portico-internal': 'guess' } })).status).toBe(200);
    expect((await fetch(`${s.url}/api/protocols`, { headers: { 'x-portico-internal': 'guess' } })).status).toBe(429);
  });

  it("a guess with non-ASCII bytes and the secret's length in characters is refused, not a 500", async () => {
    const s = await start({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    // The secret is 43 base64url characters. These 42 bytes arrive as 43 (latin1) characters, whose
    // UTF-8 form is 45 bytes: equal in characters, not in bytes.
    const request = `GET /api/protocols HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-portico-internal: ${'a'.repeat(41)}\u00e9\r\n\r\n`;
    expect(await rawExchange(s.url, request)).toMatch(/^HTTP\/1\.1 200 /);
    const second = await rawExchange(s.url, request);
    expect(second).toMatch(/^HTTP\/1\.1 429 /);
    expect(second).toContain('"error":"rate_limited"');
  });
});

describe('Server-Sent Events (item 3)', () => {
  const open = async (url: string, headers: Record<string, string> = {}) => {
    const controller = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
    return { res, close: () => controller.abort() };
  };

  it('bounds streams per client and in total with 429 JSON, and frees everything on close', async () => {
    const s = await start({
      env: { TRUST_PROXY: '127.0.0.1' },
      origin: { sseLimits: { ...DEFAULT_SSE_LIMITS, perClient: 2, total: 3 } },
    });
    const hooksBefore = s.main.ctx.onClose.length;
    const listenersBefore = s.main.ctx.securityEvents.feed.added.listenerCount('entry');
    const a = await open(`${s.url}/agentauth/events`);
    const b = await open(`${s.url}/agentauth/events`);
    expect([a.res.status, b.res.status]).toEqual([200, 200]);
    const third = await fetch(`${s.url}/agentauth/events`);
    expect(third.status).toBe(429);
    expect(((await third.json()) as { error: string }).error).toBe('rate_limited');
    // Another client may still open one, up to the total.
    const other = await open(`${s.url}/agentauth/events`, { 'x-forwarded-for': '192.0.2.7' });
    expect(other.res.status).toBe(200);
    expect((await fetch(`${s.url}/agentauth/events`, { headers: { 'x-forwarded-for': '192.0.2.8' } })).status).toBe(
      429,
    );
    for (const stream of [a, b, other]) stream.close();
    await expect.poll(() => s.main.ctx.sse.size).toBe(0);
    // Open and close many: nothing accumulates.
    for (let i = 0; i < 30; i++) {
      const c = await open(`${s.url}/agentauth/events`);
      c.close();
      await expect.poll(() => s.main.ctx.sse.size).toBe(0);
    }
    expect(s.main.ctx.onClose.length).toBe(hooksBefore);
    expect(s.main.ctx.securityEvents.feed.added.listenerCount('entry')).toBe(listenersBefore);
  });

  it('resumes with ?after=<sequence> as documented, and with Last-Event-ID', async () => {
    const s = await start();
    const revokeOne = async () => {
      const reg = (await (await fetch(`${s.url}/agentauth/identity`, json({ type: 'anonymous' }))).json()) as {
        claim_token: string;
      };
      await fetch(`${s.url}/agentauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: reg.claim_token }).toString(),
      });
    };
    await revokeOne();
    await revokeOne();
    const ids = (await s.main.ctx.securityEvents.feed.after(0, 10)).map((e) => e.sequence);
    expect(ids.length).toBe(2);
    const readFirstId = async (url: string, headers: Record<string, string> = {}) => {
      const stream = await open(url, headers);
      expect(stream.res.status).toBe(200);
      const reader = stream.res.body!.getReader();
      let text = '';
      while (!/\nid: \d+/.test(`\n${text}`)) text += new TextDecoder().decode((await reader.read()).value);
      stream.close();
      return Number(/(?:^|\n)id: (\d+)/.exec(text)![1]);
    };
    expect(await readFirstId(`${s.url}/agentauth/events?after=${ids[0]}`)).toBe(ids[1]);
    expect(await readFirstId(`${s.url}/agentauth/events`, { 'last-event-id': String(ids[0]) })).toBe(ids[1]);
    expect((await fetch(`${s.url}/agentauth/events?after=-1`)).status).toBe(400);
  });

  it('sends heartbeats and ends a stream that stayed idle', async () => {
    const s = await start({ origin: { sseLimits: { ...DEFAULT_SSE_LIMITS, heartbeatMs: 40, idleMs: 300 } } });
    const res = await fetch(`${s.url}/agentauth/events`);
    const text = await res.text(); // the server ends the stream after the idle limit
    expect(text).toContain(': keep-alive');
    expect(s.main.ctx.sse.size).toBe(0);
  });
});

describe('framework errors keep the error contract (item 6)', () => {
  it('a URL that does not decode, an over-long parameter and oversized headers answer {error, error_description}', async () => {
    const s = await start();
    const bad = await fetch(`${s.url}/api/%`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    const long = await fetch(`${s.url}/api/protocols/${'a'.repeat(101)}`);
    expect(long.status).toBe(414);
    expect(await long.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    const headers = await rawExchange(
      s.url,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    expect(headers).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(headers)).toEqual({
      error: 'invalid_request',
      error_description: 'The request headers are larger than 16 KiB',
    });
  });

  it('requests arriving on a kept-alive connection while the server drains get 503 in our shape', async () => {
    const s = await start();
    const { port } = new URL(s.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', () => undefined);
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await expect.poll(() => received).toMatch(/"status"/);
    received = '';
    // Hold the shutdown between "draining" and the final close while a request arrives on the open connection.
    let release!: () => void;
    s.main.ctx.onClose.unshift(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
          socket.write('GET /api/protocols HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
        }),
    );
    const closing = s.close();
    await expect.poll(() => received).toMatch(/\r\n\r\n\{/);
    expect(received).toMatch(/^HTTP\/1\.1 503 /);
    expect(bodyOf(received)).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The server is shutting down',
    });
    release();
    await closing;
    server = undefined;
    socket.destroy();
  });
});

describe('slow bodies time out (item 10)', () => {
  it('a POST that declares a body and never sends it is answered 408 and closed', async () => {
    const s = await start({ origin: { requestTimeoutMs: 400 } });
    const raw = await rawExchange(
      s.url,
      'POST /api/lookingglass/decode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
      { timeoutMs: 5000 },
    );
    expect(raw).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(raw)).toEqual({
      error: 'invalid_request',
      error_description: 'The request was not received in time',
    });
  });
});

describe('runs interrupted by a crash (item 11)', () => {
  it('are closed as interrupted when the service starts again, and their event streams end', async () => {
    const first = await startMainServer();
    const id = 'crashedrun01';
    await first.main.ctx.flowRuns.actors.create(id, {
      type: 'run.started',
      at: first.clock.now(),
      protocol: 'oauth2',
      flow: 'client-credentials',
      options: {},
    });
    expect(((await (await fetch(`${first.url}/api/runs/${id}`)).json()) as { status: string }).status).toBe('running');
    await first.close({ keepData: true });

    const s = await start({ dataDir: first.dataDir });
    const view = (await (await fetch(`${s.url}/api/runs/${id}`)).json()) as { status: string; error: string };
    expect(view.status).toBe('interrupted');
    expect(view.error).toMatch(/stopped/);
    const events = await (await fetch(`${s.url}/api/runs/${id}/events`)).text(); // ends by itself
    expect(events).toContain('event: run.interrupted');
    // A second start finds nothing left to close.
    expect(await s.main.ctx.flowRuns.interruptUnfinished()).toBe(0);
  });
});
