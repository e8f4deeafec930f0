import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildMain } from '../../support/child-main.ts';
import { freePort } from '../../support/wallet-server.ts';

// Issue 35: a SIGKILL between delivery and acknowledgement loses nothing: the SET polled but not
// acknowledged comes again from the restarted process, and after the ack never again.
const RISC = 'https://schemas.openid.net/secevent/risc/event-type/';
const dataDir = mkdtempSync(join(tmpdir(), 'portico-ssf-crash-'));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('SSF across a crash', () => {
  it('redelivers an unacknowledged SET after a SIGKILL, and never an acknowledged one', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = await startChildMain(port, { DATA_DIR: dataDir });
    const basic = Buffer.from('machine-client:machine-client-secret').toString('base64');
    const tokenOf = async () =>
      (
        (await (
          await fetch(`${base}/oauth2/token`, {
            method: 'POST',
            headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials&scope=ssf',
          })
        ).json()) as { access_token: string }
      ).access_token;
    const call = async (token: string, path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      return (text ? JSON.parse(text) : {}) as any;
    };
    let token = await tokenOf();
    const { stream_id } = await call(token, '/ssf/streams', { events_requested: [`${RISC}account-purged`] });
    const subject = { format: 'opaque', id: 'u1' };
    await call(token, '/ssf/subjects:add', { stream_id, subject });
    await call(token, '/ssf/events', { event_type: `${RISC}account-purged`, subject, event: {} });
    const delivered = Object.keys((await call(token, `/ssf/poll/${stream_id}`, { returnImmediately: true })).sets);
    expect(delivered).toHaveLength(1);

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = await startChildMain(port, { DATA_DIR: dataDir });
    token = await tokenOf();
    const again = Object.keys((await call(token, `/ssf/poll/${stream_id}`, { returnImmediately: true })).sets);
    expect(again).toEqual(delivered);
    expect((await call(token, `/ssf/poll/${stream_id}`, { returnImmediately: true, ack: delivered })).sets).toEqual({});

    const killed = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await killed;
    child = await startChildMain(port, { DATA_DIR: dataDir });
    token = await tokenOf();
    expect((await call(token, `/ssf/poll/${stream_id}`, { returnImmediately: true })).sets).toEqual({});
    // Three full starts of the service in child processes: seconds each alone, far more on a loaded machine.
  }, 120_000);
});
