import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { ActorRuntime } from '../../../services/actors/runtime.ts';

/** A counter that accepts `add` only while below a limit: enough to see accept, reject and order. */
const counter = setup({
  types: { context: {} as { total: number; seen: number[] }, events: {} as { type: 'add'; at: number; n: number } },
  guards: { belowLimit: ({ context }) => context.total < 100 },
}).createMachine({
  context: { total: 0, seen: [] },
  on: {
    add: {
      guard: 'belowLimit',
      actions: assign(({ context, event }) => ({ total: context.total + event.n, seen: [...context.seen, event.n] })),
    },
  },
});

describe('actor runtime', () => {
  let dir: string;
  let log: SqliteEventLog;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-actors-'));
    log = new SqliteEventLog(join(dir, 'events.db'));
  });
  afterEach(async () => {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serialises concurrent commands on one stream and loses none', async () => {
    const actors = new ActorRuntime(log, counter, 'counter');
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => actors.execute('c', { type: 'add', at: i, n: 1 })),
    );
    expect(outcomes.every((o) => o.accepted)).toBe(true);
    expect(outcomes.map((o) => o.version)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect((await actors.get('c')).snapshot.context.total).toBe(50);
    expect(await log.streamVersion('counter:c')).toBe(50);
  });

  it('rejected commands append nothing', async () => {
    const actors = new ActorRuntime(log, counter, 'counter');
    await actors.execute('c', { type: 'add', at: 0, n: 100 });
    const rejected = await actors.execute('c', { type: 'add', at: 1, n: 1 });
    expect(rejected.accepted).toBe(false);
    expect(await log.streamVersion('counter:c')).toBe(1);
  });

  it('a decision function sees the state left by the previous command', async () => {
    const actors = new ActorRuntime(log, counter, 'counter');
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        actors.execute('c', async ({ snapshot }) => {
          seen.push(snapshot.context.total);
          return { type: 'add', at: i, n: 10 };
        }),
      ),
    );
    expect(seen).toEqual([0, 10, 20, 30, 40]);
  });

  it('rebuilds actors from the log (fresh runtime, evicted cache) and retries after another writer moved the stream', async () => {
    const a = new ActorRuntime(log, counter, 'counter', 1);
    const b = new ActorRuntime(log, counter, 'counter', 1);
    await a.execute('c', { type: 'add', at: 0, n: 1 });
    await a.execute('other', { type: 'add', at: 0, n: 1 }); // evicts 'c' from a's one-entry cache
    expect((await b.get('c')).snapshot.context.seen).toEqual([1]);
    await a.execute('c', { type: 'add', at: 1, n: 2 }); // b's cached 'c' is now stale
    const outcome = await b.execute('c', { type: 'add', at: 2, n: 3 });
    expect(outcome.accepted).toBe(true);
    expect(outcome.snapshot.context.seen).toEqual([1, 2, 3]);
    expect((await log.readStream('counter:c')).map((e) => e.data.n)).toEqual([1, 2, 3]);
  });

  it('create() starts a new stream without reading it, and decides again if it existed', async () => {
    const actors = new ActorRuntime(log, counter, 'counter');
    await actors.execute('x', { type: 'add', at: 0, n: 5 });
    const other = new ActorRuntime(log, counter, 'counter');
    const outcome = await other.create('x', { type: 'add', at: 1, n: 7 });
    expect(outcome.snapshot.context.seen).toEqual([5, 7]);
  });
});
