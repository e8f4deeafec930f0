import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { ManualClock } from '../../../services/clock.ts';
import { STATUS_LISTS_STREAM, StatusIndexAllocator } from '../../../services/status/allocator.ts';
import { DOCUMENT_SIGNER, type ListSigner } from '../../../services/status/signers.ts';

const SIGNER: ListSigner = DOCUMENT_SIGNER;

// Issue 34: indices are handed out at random among unused ones, never twice, even by two allocators on one
// log (two instances), and a full list is followed by a new one.
let dir: string;
let log: SqliteEventLog;
const clock = new ManualClock(Date.UTC(2026, 10, 27));
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'status-allocator-'));
  log = new SqliteEventLog(join(dir, 'main.db'));
});
afterAll(async () => {
  await log.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('status index allocation', () => {
  it('fills a list with every index exactly once, across two allocators, then opens the next list', async () => {
    const size = 40;
    const a = new StatusIndexAllocator(log, clock, size);
    const b = new StatusIndexAllocator(log, clock, size);
    const slots = await Promise.all(Array.from({ length: 2 * size + 5 }, (_, i) => (i % 2 ? a : b).allocate(SIGNER)));
    const lists = [...new Set(slots.map((s) => s.listId))];
    expect(lists).toHaveLength(3);
    const opened = (await log.readStream(STATUS_LISTS_STREAM)).map((e) => e.data.list_id);
    expect(opened).toEqual(lists.sort((x, y) => opened.indexOf(x) - opened.indexOf(y)));
    for (const listId of opened.slice(0, 2)) {
      const indices = slots.filter((s) => s.listId === listId).map((s) => s.idx);
      expect(indices.sort((x, y) => x - y)).toEqual(Array.from({ length: size }, (_, i) => i));
    }
    const keys = slots.map((s) => `${s.listId}#${s.idx}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('chooses indices at random, not in order of issuance', async () => {
    const own = new SqliteEventLog(join(dir, 'random.db'));
    const allocator = new StatusIndexAllocator(own, clock);
    const indices: number[] = [];
    for (let i = 0; i < 64; i++) indices.push((await allocator.allocate(SIGNER)).idx);
    const ascending = indices.every((v, i) => i === 0 || v > indices[i - 1]);
    expect(ascending).toBe(false);
    // Spread over the 131,072 entries rather than packed at the start.
    expect(Math.max(...indices)).toBeGreaterThan(10_000);
    await own.close();
  });

  it('fills the last list by the size it was opened with, whatever the allocator would open', async () => {
    const small = new SqliteEventLog(join(dir, 'sizes.db'));
    const opened = await new StatusIndexAllocator(small, clock, 40).allocate(SIGNER);
    const later = new StatusIndexAllocator(small, clock);
    const slots = [];
    for (let i = 0; i < 30; i++) slots.push(await later.allocate(SIGNER));
    // 16 of the 40 were reserved by the first allocator: the other 24 fill the list, then a new one opens.
    const inFirst = slots.filter((s) => s.listId === opened.listId);
    expect(inFirst).toHaveLength(24);
    expect(inFirst.every((s) => s.idx < 40)).toBe(true);
    expect(slots.filter((s) => s.listId !== opened.listId)).toHaveLength(6);
    await small.close();
  });

  // Issue 45 item 11: a list is signed by the key of the credentials pointing at it, so signers never share one.
  it('keeps separate lists per signer, each named in the registry with its signer', async () => {
    const own = new SqliteEventLog(join(dir, 'signers.db'));
    const a = new StatusIndexAllocator(own, clock, 20);
    const b = new StatusIndexAllocator(own, clock, 20);
    const signers: ListSigner[] = [DOCUMENT_SIGNER, 'issuer-key:k1', 'issuer-key:k2'];
    const slots = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => {
        const signer = signers[i % 3]!;
        return { signer, ...(await (i % 2 ? a : b).allocate(signer)) };
      }),
    );
    const registry = (await own.readStream(STATUS_LISTS_STREAM)).map((e) => e.data);
    const signerOf = new Map(registry.map((d) => [d.list_id as string, d.signer as string]));
    for (const slot of slots) expect(signerOf.get(slot.listId)).toBe(slot.signer);
    // 30 slots each, 20 to a list: two lists per signer, every index once.
    for (const signer of signers) expect(registry.filter((d) => d.signer === signer)).toHaveLength(2);
    const keys = slots.map((s) => `${s.listId}#${s.idx}`);
    expect(new Set(keys).size).toBe(keys.length);
    await own.close();
  });
});
