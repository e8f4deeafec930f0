import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 35: the catalog protocol ssf and its three flows, run for real with every exchange captured.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

async function run(flow: string) {
  const res = await fetch(`${server.url}/api/protocols/ssf/demo/${flow}`, json({}));
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(201);
  expect(body.status, body.error).toBe('succeeded');
  return body.exchanges.map((x: any) => x.step) as string[];
}

describe('ssf flows', () => {
  it('lists the protocol and its three executable flows', async () => {
    const flows = (await (await fetch(`${server.url}/api/protocols/ssf/flows`)).json()) as any;
    expect(flows.flows.map((f: any) => [f.id, f.executable])).toEqual([
      ['pause-and-resume', true],
      ['poll-with-ack', true],
      ['push-to-receiver', true],
    ]);
  });

  it('push to our receiver: create, verify, trigger, received', async () => {
    const steps = await run('push-to-receiver');
    expect(steps).toEqual(
      expect.arrayContaining([
        'Transmitter configuration',
        'Create a receiver',
        'Create a stream',
        'Ask for verification',
        'Trigger an event',
        'Read the receiver',
      ]),
    );
  });

  it('poll with ack, and a pause and resume that holds events', async () => {
    expect(await run('poll-with-ack')).toEqual(
      expect.arrayContaining(['Poll', 'Poll again without ack', 'Acknowledge']),
    );
    expect(await run('pause-and-resume')).toEqual(
      expect.arrayContaining(['Pause', 'Poll while paused', 'Resume', 'Poll after resuming']),
    );
  });
});
