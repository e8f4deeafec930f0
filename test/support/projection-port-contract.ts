import { describe, expect, it } from 'vitest';
import { ProjectionRunner } from '../../projections/runner.ts';
import {
  sql,
  type CommittedEvent,
  type Projection,
  type ProjectionStore,
  type ReadModelReader,
} from '../../projections/types.ts';
import type { EventLog } from '../../services/event-log.ts';

/** A read model counting `n.added` events per stream, to prove the port's contract. */
class Counter implements Projection {
  readonly name = 'counter';
  readonly tables = ['counter'];
  reader?: ReadModelReader;
  heard: number[] = [];
  schema() {
    return ['CREATE TABLE IF NOT EXISTS counter (stream TEXT PRIMARY KEY, n BIGINT NOT NULL)'];
  }
  attach(reader: ReadModelReader) {
    this.reader = reader;
  }
  apply(events: readonly CommittedEvent[]) {
    return events.flatMap((e) => {
      if (e.type === 'n.added')
        return [
          sql(
            'INSERT INTO counter (stream, n) VALUES (?, 1) ON CONFLICT (stream) DO UPDATE SET n = counter.n + 1',
            e.streamId,
          ),
        ];
      // A statement that fails: the append's transaction, events included, rolls back.
      if (e.type === 'n.broken') return [sql('INSERT INTO counter (stream, n) VALUES (?, NULL)', e.streamId)];
      return [];
    });
  }
  committed(events: readonly CommittedEvent[]) {
    this.heard.push(...events.map((e) => e.sequence));
  }
  async count(stream: string) {
    return Number((await this.reader!.get<{ n: number }>('SELECT n FROM counter WHERE stream = ?', [stream]))?.n ?? 0);
  }
}

export interface ProjectionHarness {
  log: EventLog;
  store: ProjectionStore;
  reopen(): Promise<ProjectionHarness>;
  /** Another instance on the same store (a store several instances share). */
  second?(): Promise<ProjectionHarness>;
  close(): Promise<void>;
}

/** The projection port's contract; every store runs it (SQLite here, PostgreSQL with issue 20). */
export function projectionPortContract(
  name: string,
  open: () => Promise<ProjectionHarness>,
  options: { shared?: boolean } = {},
) {
  describe(`projection port contract: ${name}`, () => {
    it('folds inside the append: the read model is level with the log when the append resolves', async () => {
      const h = await open();
      const counter = new Counter();
      const runner = new ProjectionRunner(h.store, [counter]);
      await runner.start();
      await h.log.append('s:1', 0, [{ type: 'n.added', at: 1, data: {} }]);
      expect(await counter.count('s:1')).toBe(1);
      await Promise.all([
        h.log.append('s:2', 0, [{ type: 'n.added', at: 2, data: {} }]),
        h.log.append('s:1', 1, [
          { type: 'n.added', at: 3, data: {} },
          { type: 'other', at: 3, data: {} },
        ]),
      ]);
      expect([await counter.count('s:1'), await counter.count('s:2')]).toEqual([2, 1]);
      expect(runner.position('counter')).toBe(await h.log.headSequence());
      expect(counter.heard).toEqual([1, 2, 3, 4]);
      await runner.stop();
      await h.close();
    });

    it('a rejected append moves neither the read model nor its position', async () => {
      const h = await open();
      const counter = new Counter();
      const runner = new ProjectionRunner(h.store, [counter]);
      await runner.start();
      await h.log.append('s:1', 0, [{ type: 'n.added', at: 1, data: {} }]);
      await expect(h.log.append('s:1', 0, [{ type: 'n.added', at: 2, data: {} }])).rejects.toThrow();
      expect(await counter.count('s:1')).toBe(1);
      expect(runner.position('counter')).toBe(1);
      await h.log.append('s:1', 1, [{ type: 'n.added', at: 3, data: {} }]);
      expect(await counter.count('s:1')).toBe(2);
      await runner.stop();
      await h.close();
    });

    it('a fold that fails rolls the append back, and the positions with it', async () => {
      const h = await open();
      const counter = new Counter();
      const runner = new ProjectionRunner(h.store, [counter]);
      await runner.start();
      await h.log.append('s:1', 0, [{ type: 'n.added', at: 1, data: {} }]);
      const results = await Promise.allSettled([
        h.log.append('s:2', 0, [{ type: 'n.broken', at: 2, data: {} }]),
        h.log.append('s:3', 0, [{ type: 'n.added', at: 3, data: {} }]),
      ]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
      expect(await h.log.streamVersion('s:2')).toBe(0);
      expect([await counter.count('s:1'), await counter.count('s:3')]).toEqual([1, 1]);
      expect(runner.position('counter')).toBe(await h.log.headSequence());
      await h.log.append('s:1', 1, [{ type: 'n.added', at: 4, data: {} }]);
      expect(await counter.count('s:1')).toBe(2);
      expect(counter.heard).toEqual(await h.log.readAll(0, 100).then((all) => all.map((e) => e.sequence)));
      await runner.stop();
      await h.close();
    });

    it('resumes from its checkpoint after a restart and catches up what it missed', async () => {
      const h = await open();
      const first = new ProjectionRunner(h.store, [new Counter()]);
      await first.start();
      for (let i = 0; i < 5; i++) await h.log.append(`s:${i}`, 0, [{ type: 'n.added', at: i, data: {} }]);
      await first.stop();
      // Appends while no runner follows (another process, or a crash before the read model saw them).
      for (let i = 0; i < 3; i++) await h.log.append(`s:${i}`, 1, [{ type: 'n.added', at: 10 + i, data: {} }]);
      const again = await h.reopen();
      const counter = new Counter();
      const runner = new ProjectionRunner(again.store, [counter]);
      await runner.start();
      expect(await Promise.all([0, 1, 2, 3, 4].map((i) => counter.count(`s:${i}`)))).toEqual([2, 2, 2, 1, 1]);
      // Live listeners hear commits as they happen; what was caught up is read from the tables instead.
      expect(counter.heard).toEqual([]);
      await again.log.append('s:0', 2, [{ type: 'n.added', at: 20, data: {} }]);
      expect(counter.heard).toEqual([9]);
      await runner.stop();
      await again.close();
    });

    it('rebuilds from sequence 0 to the same rows', async () => {
      const h = await open();
      const counter = new Counter();
      const runner = new ProjectionRunner(h.store, [counter]);
      await runner.start();
      for (let i = 0; i < 20; i++)
        await h.log.append(`s:${i % 3}`, Math.floor(i / 3), [{ type: 'n.added', at: i, data: {} }]);
      const before = await Promise.all([0, 1, 2].map((i) => counter.count(`s:${i}`)));
      await runner.rebuild('counter');
      expect(await Promise.all([0, 1, 2].map((i) => counter.count(`s:${i}`)))).toEqual(before);
      expect(before).toEqual([7, 7, 6]);
      await h.log.append('s:0', 7, [{ type: 'n.added', at: 99, data: {} }]);
      expect(await counter.count('s:0')).toBe(8);
      await runner.stop();
      await h.close();
    });

    // Only a store several instances share has this case (SQLite belongs to one process).
    if (options.shared)
      it('several instances sharing the store fold every event exactly once, whichever appended it', async () => {
        const a = await open();
        expect(a.store.shared).toBe(true);
        const b = await a.second!();
        const [onA, onB] = [new Counter(), new Counter()];
        const runners = [new ProjectionRunner(a.store, [onA]), new ProjectionRunner(b.store, [onB])];
        for (const r of runners) await r.start();
        const logs = [a.log, b.log];
        // Each stream is written alternately by both instances; 30 streams in flight at once.
        await Promise.all(
          Array.from({ length: 30 }, async (_, stream) => {
            for (let version = 0; version < 6; version++)
              await logs[(stream + version) % 2].append(`s:${stream}`, version, [
                { type: 'n.added', at: version, data: {} },
              ]);
          }),
        );
        const head = await a.log.headSequence();
        expect(head).toBe(180);
        for (const counter of [onA, onB])
          expect(await Promise.all(Array.from({ length: 30 }, (_, i) => counter.count(`s:${i}`)))).toEqual(
            Array(30).fill(6),
          );
        expect(await a.store.checkpoint('counter')).toBe(head);
        // Both instances' live listeners heard every commit, once, in order.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const all = Array.from({ length: head }, (_, i) => i + 1);
        expect(onA.heard).toEqual(all);
        expect(onB.heard).toEqual(all);
        // A rebuild on A while B keeps appending ends with the same rows.
        await Promise.all([
          runners[0].rebuild('counter'),
          ...Array.from({ length: 10 }, (_, i) => b.log.append(`s:${i}`, 6, [{ type: 'n.added', at: 7, data: {} }])),
        ]);
        await b.log.append('s:0', 7, [{ type: 'n.added', at: 8, data: {} }]);
        expect(await Promise.all(Array.from({ length: 12 }, (_, i) => onB.count(`s:${i}`)))).toEqual([
          8,
          ...Array(9).fill(7),
          6,
          6,
        ]);
        for (const r of runners) await r.stop();
        await b.close();
        await a.close();
      });
  });
}
