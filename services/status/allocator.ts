import { randomInt } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { STATUS_BITS, STATUS_LIST_SIZE } from '../credentials/status-list/bits.ts';
import { randomToken } from '../crypto/random.ts';
import { VersionConflict, type EventLog } from '../event-log.ts';

/** Where a credential's status lives: a list and an index in it. */
export interface StatusSlot {
  listId: string;
  idx: number;
}

/** The stream naming every list in the order they were opened; the last one is filled. */
export const STATUS_LISTS_STREAM = 'status-lists:registry';
export const statusListStream = (listId: string) => `status-list:${listId}`;

/** Indices reserved per append: one append serves this many credentials. */
const RESERVATION = 16;
const ATTEMPTS = 20;

interface OpenList {
  listId: string;
  /** Entries of the list, as it was opened. */
  size: number;
  version: number;
  used: Set<number>;
}

/**
 * Hands out list indices at random among those never handed out (draft-ietf-oauth-status-list §13.2,
 * so an index says nothing of issuance order). Reservations are events of the list's stream, appended
 * with its expected version, so instances sharing a log never hand out one index twice; a reservation
 * an instance did not use before it stopped stays unused. A list holds STATUS_LIST_SIZE entries; a
 * full one is followed by a new list, opened by an event of `status-lists`.
 */
export class StatusIndexAllocator {
  private pool: StatusSlot[] = [];
  private refilling?: Promise<void>;
  private lists: Array<{ listId: string; size: number }> = [];
  private registryVersion = 0;
  private current?: OpenList;

  constructor(
    private readonly log: EventLog,
    private readonly clock: Clock,
    /** The size of the lists this allocator opens. */
    private readonly size = STATUS_LIST_SIZE,
  ) {}

  async allocate(): Promise<StatusSlot> {
    for (;;) {
      const slot = this.pool.pop();
      if (slot) return slot;
      this.refilling ??= this.refill().finally(() => (this.refilling = undefined));
      await this.refilling;
    }
  }

  private async refill(): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const list = await this.openList();
      await this.readReservations(list);
      if (list.used.size >= list.size) {
        await this.openNext(list.listId);
        continue;
      }
      const indices = this.pick(list, Math.min(RESERVATION, list.size - list.used.size));
      try {
        await this.log.append(statusListStream(list.listId), list.version, [
          { type: 'status_list.indices_reserved', data: { indices }, at: this.clock.now() },
        ]);
      } catch (error) {
        if (error instanceof VersionConflict) continue;
        throw error;
      }
      list.version += 1;
      for (const idx of indices) list.used.add(idx);
      this.pool.push(...indices.map((idx) => ({ listId: list.listId, idx })));
      return;
    }
    throw new Error('status list indices could not be reserved: too many concurrent reservations');
  }

  /** The list being filled, as the log names it now (another instance may have opened a newer one). */
  private async openList(): Promise<OpenList> {
    for (const e of await this.log.readStream(STATUS_LISTS_STREAM, this.registryVersion)) {
      this.lists.push({ listId: String(e.data.list_id), size: Number(e.data.size) });
      this.registryVersion = e.version;
    }
    const last = this.lists[this.lists.length - 1];
    if (last === undefined) {
      await this.openNext(undefined);
      return this.openList();
    }
    if (this.current?.listId !== last.listId) this.current = { ...last, version: 0, used: new Set() };
    return this.current;
  }

  private async readReservations(list: OpenList): Promise<void> {
    for (const e of await this.log.readStream(statusListStream(list.listId), list.version)) {
      for (const idx of e.data.indices as number[]) list.used.add(idx);
      list.version = e.version;
    }
  }

  /** Opens a list after `full` (none yet: the first); someone else having done so already is as good. */
  private async openNext(full: string | undefined): Promise<void> {
    if (this.lists[this.lists.length - 1]?.listId !== full) return;
    const listId = randomToken(12);
    try {
      await this.log.append(STATUS_LISTS_STREAM, this.registryVersion, [
        {
          type: 'status_list.opened',
          data: { list_id: listId, size: this.size, bits: STATUS_BITS },
          at: this.clock.now(),
        },
      ]);
    } catch (error) {
      if (!(error instanceof VersionConflict)) throw error;
    }
  }

  /** `count` distinct unused indices, uniformly at random. */
  private pick(list: OpenList, count: number): number[] {
    const chosen = new Set<number>();
    const free = list.size - list.used.size;
    if (free > list.size / 8) {
      while (chosen.size < count) {
        const idx = randomInt(list.size);
        if (!list.used.has(idx)) chosen.add(idx);
      }
      return [...chosen];
    }
    // A nearly full list: draw from the free indices themselves rather than retrying.
    const unused: number[] = [];
    for (let i = 0; i < list.size; i++) if (!list.used.has(i)) unused.push(i);
    for (let i = 0; i < count; i++) {
      const j = i + randomInt(unused.length - i);
      [unused[i], unused[j]] = [unused[j], unused[i]];
    }
    return unused.slice(0, count);
  }
}

/** The issuer's view of status: slots from the allocator, written as the lists' URLs. */
export const statusSlotsOf = (
  allocator: StatusIndexAllocator,
  urls: {
    tokenUri(listId: string): string;
    bitstringUrl(purpose: 'revocation' | 'suspension', listId: string): string;
  },
) => ({
  allocate: () => allocator.allocate(),
  tokenUri: (listId: string) => urls.tokenUri(listId),
  bitstringUrl: (purpose: 'revocation' | 'suspension', listId: string) => urls.bitstringUrl(purpose, listId),
});
