import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { VersionConflict, type StoredEvent } from '../../../services/event-log.ts';

describe('SQLite event log', () => {
  let dir: string;
  let log: SqliteEventLog;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portico-log-'));
    log = new SqliteEventLog(join(dir, 'events.db'));
  });
  afterEach(async () => {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ev = (type: string, n = 0) => ({ type, at: 1_000 + n, data: { n } });

  it('appends with per-stream versions and a global sequence', async () => {
    const a = await log.append('s:a', 0, [ev('one'), ev('two', 1)]);
    const b = await log.append('s:b', 0, [ev('three', 2)]);
    expect(a.map((e) => [e.sequence, e.version])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(b.map((e) => [e.sequence, e.version])).toEqual([[3, 1]]);
    expect((await log.readStream('s:a')).map((e) => e.type)).toEqual(['one', 'two']);
    expect((await log.readStream('s:a', 1)).map((e) => e.type)).toEqual(['two']);
    expect((await log.readAll(1, 10)).map((e) => e.sequence)).toEqual([2, 3]);
    expect(await log.headSequence()).toBe(3);
    expect(await log.streamVersion('s:a')).toBe(2);
    expect(await log.streamIds('s:')).toEqual(['s:a', 's:b']);
  });

  it('refuses an append at a stale expected version and keeps what was stored', async () => {
    await log.append('s:a', 0, [ev('one')]);
    await expect(log.append('s:a', 0, [ev('again')])).rejects.toBeInstanceOf(VersionConflict);
    await expect(log.append('s:a', 5, [ev('ahead')])).rejects.toBeInstanceOf(VersionConflict);
    expect((await log.readStream('s:a')).map((e) => e.type)).toEqual(['one']);
  });

  it('refuses an append at the version it last committed once another writer has gone further', async () => {
    await log.append('s:a', 0, [ev('one')]);
    const other = new SqliteEventLog(join(dir, 'events.db'));
    try {
      await other.append('s:a', 1, [ev('elsewhere')]);
    } finally {
      await other.close();
    }
    const refused = log.append('s:a', 1, [ev('stale'), ev('stale too')]);
    await expect(refused).rejects.toBeInstanceOf(VersionConflict);
    await expect(refused).rejects.toMatchObject({ expected: 1, actual: 2 });
    // Two appends at one version in one group commit: the second conflicts, the first stands.
    const [first, second] = await Promise.allSettled([
      log.append('s:a', 2, [ev('three')]),
      log.append('s:a', 2, [ev('three again')]),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(second.status === 'rejected' && second.reason).toBeInstanceOf(VersionConflict);
    await log.append('s:a', 3, [ev('four')]);
    expect((await log.readStream('s:a')).map((e) => e.type)).toEqual(['one', 'elsewhere', 'three', 'four']);
  });

  it('refuses UPDATE and DELETE of events at the database level', async () => {
    await log.append('s:a', 0, [ev('one')]);
    expect(() => log.db.prepare("UPDATE events SET type = 'forged'").run()).toThrow(/immutable/);
    expect(() => log.db.prepare('DELETE FROM events').run()).toThrow(/permanent/);
    expect((await log.readStream('s:a'))[0].type).toBe('one');
  });

  it('publishes only committed events, in commit order', async () => {
    const seen: StoredEvent[] = [];
    log.onCommit((events) => seen.push(...events));
    await log.append('s:a', 0, [ev('one')]);
    await expect(log.append('s:a', 0, [ev('rejected')])).rejects.toThrow();
    await log.append('s:a', 1, [ev('two')]);
    expect(seen.map((e) => e.type)).toEqual(['one', 'two']);
  });

  it('stores the snapshot in the same transaction as the events', async () => {
    await log.append('s:a', 0, [ev('one')], { value: 'x', context: { n: 1 } });
    expect(await log.loadSnapshot('s:a')).toEqual({
      streamId: 's:a',
      version: 1,
      state: { value: 'x', context: { n: 1 } },
    });
    await expect(log.append('s:a', 0, [ev('stale')], { value: 'y' })).rejects.toThrow();
    expect((await log.loadSnapshot('s:a'))?.version).toBe(1);
  });

  it('uses WAL journaling', () => {
    expect(log.db.pragma('journal_mode', { simple: true })).toBe('wal');
  });
});

describe('group commit', () => {
  it('commits appends of one turn together, each with its own version check', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-log-'));
    const log = new SqliteEventLog(join(dir, 'events.db'));
    try {
      await log.append('s:taken', 0, [{ type: 'first', at: 1, data: {} }]);
      const commits: number[][] = [];
      log.onCommit((events) => commits.push(events.map((e) => e.sequence)));
      const results = await Promise.allSettled([
        log.append('s:a', 0, [{ type: 'a', at: 2, data: {} }]),
        log.append('s:taken', 0, [{ type: 'stale', at: 3, data: {} }]),
        log.append('s:b', 0, [
          { type: 'b', at: 4, data: {} },
          { type: 'b2', at: 5, data: {} },
        ]),
        log.append('s:a', 1, [{ type: 'a2', at: 6, data: {} }]),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflict);
      expect((await log.readStream('s:a')).map((e) => e.type)).toEqual(['a', 'a2']);
      expect((await log.readStream('s:taken')).map((e) => e.type)).toEqual(['first']);
      expect(commits).toEqual([[2], [3, 4], [5]]);
      expect(await log.headSequence()).toBe(5);
    } finally {
      await log.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finishes pending appends when closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-log-'));
    const file = join(dir, 'events.db');
    const log = new SqliteEventLog(file);
    const pending = log.append('s:a', 0, [{ type: 'late', at: 1, data: {} }]);
    await log.close();
    expect((await pending)[0].type).toBe('late');
    const reopened = new SqliteEventLog(file);
    expect((await reopened.readStream('s:a')).map((e) => e.type)).toEqual(['late']);
    await reopened.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
