import Fastify from 'fastify';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closeWithinGrace } from '../../../adapters/http/shutdown.ts';

// A connection that never sends a request held a closing server for ever (Node stops checking its
// timeouts on close): a browser's preconnect to a reused port hung the suite's teardown for 60 s.
const silentClient = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });

describe('closing a server', () => {
  it('cuts a connection that never sent a request once the grace is over', async () => {
    const app = Fastify();
    app.get('/', async () => 'ok');
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const socket = await silentClient(port);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));

    const started = Date.now();
    await closeWithinGrace(app, 100);
    await closed;
    expect(socket.destroyed).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('lets a request under way finish within the grace', async () => {
    const app = Fastify();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    app.get('/slow', async () => {
      await held;
      return 'done';
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const answer = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = closeWithinGrace(app, 2_000);
    release();
    expect(await answer).toBe('done');
    await closing;
  });
});
