import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventLog } from '../../../adapters/store/postgres-event-log.ts';
import { PostgresProjectionStore } from '../../../adapters/store/postgres-projection-store.ts';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { singleUseMachine } from '../../../machines/single-use.ts';
import { ActorRuntime } from '../../../services/actors/runtime.ts';
import { VersionConflict, type EventLog, type StoredEvent } from '../../../services/event-log.ts';
import { postgresAvailable, startPostgres, type TestPostgres } from '../../support/postgres.ts';
import { projectionPortContract, type ProjectionHarness } from '../../support/projection-port-contract.ts';

/**
 * Issue 20: one contract for every event log store, run against SQLite and against a real
 * PostgreSQL (a temporary cluster, a fresh database per case). Store-specific powers (raw SQL to
 * try a forgery, a second instance on the same database) come from the harness.
 */
interface LogHarness {
  log: EventLog;
  /** Runs raw SQL against the store, as an attacker with database access would. */
  raw(sql: string): Promise<unknown>;
  /** Another instance on the same store (PostgreSQL), for cross-instance cases. */
  second?(): Promise<EventLog>;
  close(): Promise<void>;
}

const ev = (type: string, n = 0) => ({ type, at: 1_000 + n, data: { n, text: `é ${n} \u2028` } });

function eventLogContract(name: string, open: () => Promise<LogHarness>, options: { crossInstance: boolean }) {
  describe(`event log contract: ${name}`, () => {
    it('appends with per-stream versions and a global sequence; reads by stream, by sequence and by prefix', async () => {
      const h = await open();
      try {
        const a = await h.log.append('s:a', 0, [ev('one'), ev('two', 1)]);
        const b = await h.log.append('s:b', 0, [ev('three', 2)]);
        expect(a.map((e) => [e.sequence, e.version])).toEqual([
          [1, 1],
          [2, 2],
        ]);
        expect(b.map((e) => [e.sequence, e.version])).toEqual([[3, 1]]);
        expect((await h.log.readStream('s:a')).map((e) => e.type)).toEqual(['one', 'two']);
        expect((await h.log.readStream('s:a', 1))[0]).toEqual({
          sequence: 2,
          streamId: 's:a',
          version: 2,
          type: 'two',
          at: 1_001,
          data: { n: 1, text: 'é 1 \u2028' },
        });
        expect((await h.log.readAll(1, 10)).map((e) => e.sequence)).toEqual([2, 3]);
        expect((await h.log.readAll(0, 2)).map((e) => e.sequence)).toEqual([1, 2]);
        expect(await h.log.headSequence()).toBe(3);
        expect(await h.log.streamVersion('s:a')).toBe(2);
        expect(await h.log.streamVersion('s:none')).toBe(0);
        await h.log.append('t%_:x', 0, [ev('other')]);
        expect(await h.log.streamIds('s:')).toEqual(['s:a', 's:b']);
        expect(await h.log.streamIds('t%_')).toEqual(['t%_:x']);
        expect(await h.log.streamIds()).toEqual(['s:a', 's:b', 't%_:x']);
      } finally {
        await h.close();
      }
    });

    it('refuses a stale or future expected version and keeps what was stored', async () => {
      const h = await open();
      try {
        await h.log.append('s:a', 0, [ev('one')]);
        await expect(h.log.append('s:a', 0, [ev('again')])).rejects.toBeInstanceOf(VersionConflict);
        // A "new stream" append of several events that finds the stream taken writes none of them.
        const taken = await h.log
          .append('s:a', 0, [ev('again'), ev('and again')], { value: 'forged' })
          .catch((error: unknown) => error);
        expect(taken).toBeInstanceOf(VersionConflict);
        expect((taken as VersionConflict).actual).toBe(1);
        await expect(h.log.append('s:a', 5, [ev('ahead')])).rejects.toBeInstanceOf(VersionConflict);
        expect((await h.log.readStream('s:a')).map((e) => e.type)).toEqual(['one']);
        expect(await h.log.headSequence()).toBe(1);
      } finally {
        await h.close();
      }
    });

    it('concurrent appends to one stream: exactly one wins per version; to many streams: each its own check', async () => {
      const h = await open();
      try {
        const same = await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => h.log.append('s:race', 0, [ev('claim', i)])),
        );
        expect(same.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(
          same
            .filter((r) => r.status === 'rejected')
            .every((r) => (r as PromiseRejectedResult).reason instanceof VersionConflict),
        ).toBe(true);
        const many = await Promise.all(
          Array.from({ length: 20 }, (_, i) => h.log.append(`s:${i}`, 0, [ev('one', i), ev('two', i)])),
        );
        expect(
          many
            .flat()
            .map((e) => e.sequence)
            .sort((x, y) => x - y),
        ).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
      } finally {
        await h.close();
      }
    });

    it('refuses UPDATE and DELETE of events at the database level', async () => {
      const h = await open();
      try {
        await h.log.append('s:a', 0, [ev('one')]);
        await expect(h.raw("UPDATE events SET type = 'forged'")).rejects.toThrow(/immutable/);
        await expect(h.raw('DELETE FROM events')).rejects.toThrow(/permanent|immutable/);
        expect((await h.log.readStream('s:a'))[0].type).toBe('one');
      } finally {
        await h.close();
      }
    });

    it('publishes only committed events, once each, in sequence order', async () => {
      const h = await open();
      try {
        const seen: StoredEvent[] = [];
        h.log.onCommit((events) => seen.push(...events));
        await h.log.append('s:a', 0, [ev('one')]);
        await expect(h.log.append('s:a', 0, [ev('rejected')])).rejects.toThrow();
        await Promise.all([h.log.append('s:a', 1, [ev('two')]), h.log.append('s:b', 0, [ev('three')])]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(seen.map((e) => e.sequence)).toEqual([1, 2, 3]);
        expect(seen.map((e) => e.type).sort()).toEqual(['one', 'three', 'two']);
      } finally {
        await h.close();
      }
    });

    it('stores the snapshot in the same transaction as the events; checkpoints persist', async () => {
      const h = await open();
      try {
        await h.log.append('s:a', 0, [ev('one'), ev('two')], { value: 'x', context: { n: 1, list: [1, 'a'] } });
        expect(await h.log.loadSnapshot('s:a')).toEqual({
          streamId: 's:a',
          version: 2,
          state: { value: 'x', context: { n: 1, list: [1, 'a'] } },
        });
        await expect(h.log.append('s:a', 0, [ev('late')], { value: 'forged' })).rejects.toBeInstanceOf(VersionConflict);
        expect((await h.log.loadSnapshot('s:a'))?.state).toEqual({ value: 'x', context: { n: 1, list: [1, 'a'] } });
        expect(await h.log.loadSnapshot('s:none')).toBeUndefined();
        expect(await h.log.checkpoint('rm')).toBe(0);
        await h.log.saveCheckpoint('rm', 7);
        await h.log.saveCheckpoint('rm', 9);
        expect(await h.log.checkpoint('rm')).toBe(9);
      } finally {
        await h.close();
      }
    });

    it('a reader following readAll under concurrent writers never skips a sequence', async () => {
      const h = await open();
      const writers = [h.log, ...(options.crossInstance && h.second ? [await h.second(), await h.second()] : [])];
      try {
        const followed: number[] = [];
        let done = false;
        const follower = (async () => {
          let after = 0;
          while (!done || after < (await h.log.headSequence())) {
            const batch = await h.log.readAll(after, 7);
            for (const e of batch) followed.push(e.sequence);
            if (batch.length > 0) after = batch[batch.length - 1].sequence;
            else await new Promise((resolve) => setTimeout(resolve, 1));
          }
        })();
        const appends = Array.from({ length: 150 }, (_, i) =>
          writers[i % writers.length].append(
            `w:${i % 13}:${i}`,
            0,
            Array.from({ length: 1 + (i % 3) }, (_, k) => ev('w', k)),
          ),
        );
        await Promise.all(appends);
        done = true;
        await follower;
        const total = Array.from({ length: 150 }, (_, i) => 1 + (i % 3)).reduce((a, b) => a + b, 0);
        expect(followed).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      } finally {
        for (const w of writers.slice(1)) await w.close();
        await h.close();
      }
    });

    if (options.crossInstance) {
      it("commits on one instance reach the other instance's subscribers, in order, once; a conflict across instances is detected", async () => {
        const h = await open();
        const b = await h.second!();
        try {
          const heardOnB: number[] = [];
          b.onCommit((events) => heardOnB.push(...events.map((e) => e.sequence)));
          await h.log.append('x:1', 0, [ev('a'), ev('b')]);
          await b.append('x:2', 0, [ev('c')]);
          await h.log.append('x:1', 2, [ev('d')]);
          await expect(b.append('x:1', 2, [ev('stale on b')])).rejects.toBeInstanceOf(VersionConflict);
          for (let i = 0; i < 100 && heardOnB.length < 4; i++) await new Promise((resolve) => setTimeout(resolve, 10));
          expect(heardOnB).toEqual([1, 2, 3, 4]);
        } finally {
          await b.close();
          await h.close();
        }
      });

      it('an actor cached on one instance reads and decides on the current state after another instance appended', async () => {
        const h = await open();
        const b = await h.second!();
        try {
          const [onA, onB] = [
            new ActorRuntime(h.log, singleUseMachine, 'once'),
            new ActorRuntime(b, singleUseMachine, 'once'),
          ];
          expect((await onA.get('v')).version).toBe(0); // cached on A as unused
          expect((await onB.execute('v', { type: 'value.used', at: 1, purpose: 'test' })).accepted).toBe(true);
          const seen = await onA.get('v');
          expect([seen.version, seen.snapshot.value]).toEqual([1, 'used']);
          // Decided against the current state: refused by the machine, with no append tried.
          expect((await onA.execute('v', { type: 'value.used', at: 2, purpose: 'test' })).accepted).toBe(false);
          expect(await h.log.streamVersion('once:v')).toBe(1);
        } finally {
          await b.close();
          await h.close();
        }
      });
    }
  });
}

eventLogContract(
  'SQLite',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-contract-'));
    const log = new SqliteEventLog(join(dir, 'events.db'));
    return {
      log,
      raw: async (sql) => log.db.prepare(sql).run(),
      close: async () => {
        await log.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { crossInstance: false },
);

describe.skipIf(!postgresAvailable)('PostgreSQL', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  eventLogContract(
    'PostgreSQL',
    async () => {
      const url = await server.database();
      const log = await PostgresEventLog.open(url);
      return {
        log,
        raw: (sql) => log.pool.query(sql),
        second: () => PostgresEventLog.open(url),
        close: () => log.close(),
      };
    },
    { crossInstance: true },
  );

  projectionPortContract(
    'PostgreSQL',
    async () => {
      const url = await server.database();
      const openAt = async () => {
        const log = await PostgresEventLog.open(url);
        const harness: ProjectionHarness = {
          log,
          store: new PostgresProjectionStore(log),
          reopen: async () => {
            await log.close();
            return openAt();
          },
          second: openAt,
          close: () => log.close(),
        };
        return harness;
      };
      return openAt();
    },
    { shared: true },
  );
});
