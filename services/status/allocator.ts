import { randomInt } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { STATUS_BITS, STATUS_LIST_SIZE } from '../credentials/status-list/bits.ts';
import { randomToken } from '../crypto/random.ts';
import { VersionConflict, type EventLog } from '../event-log.ts';
import type { ListSigner } from './signers.ts';

/** Where a credential's status lives: a list and an index in it. */
export interface StatusSlot {
  listId: string;
  idx: number;
}

/** The stream naming every list in the order they were opened; the last one is filled. */
export const STATUS_LISTS_STREAM = 'status-lists:registry';
const statusListStream = (listId: string) => `status-list:${listId}`;

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

/** A list as the registry names it; a list opened before signers were recorded has none. */
interface RegisteredList {
  listId: string;
  size: number;
  signer?: string;
}

/**
 * Hands out list indices at random among those never handed out (draft-ietf-oauth-status-list §13.2,
 * so an index says nothing of issuance order). Reservations are events of the list's stream, appended
 * with its expected version, so instances sharing a log never hand out one index twice; a reservation
 * an instance did not use before it stopped stays unused. A list holds STATUS_LIST_SIZE entries; a
 * full one is followed by a new list, opened by an event of `status-lists`. Each signer (signers.ts)
 * fills lists of its own.
 */
export class StatusIndexAllocator {
  private readonly pools = new Map<ListSigner, StatusSlot[]>();
  private readonly refilling = new Map<ListSigner, Promise<void>>();
  private readonly current = new Map<ListSigner, OpenList>();
  private lists: RegisteredList[] = [];
  private registryVersion = 0;

  constructor(
    private readonly log: EventLog,
    private readonly clock: Clock,
    /** The size of the lists this allocator opens. */
    private readonly size = STATUS_LIST_SIZE,
  ) {}

  /** A slot in a list signed by `signer`. */
  async allocate(signer: ListSigner): Promise<StatusSlot> {
    for (;;) {
      const slot = this.pools.get(signer)?.pop();
      if (slot) return slot;
      let refill = this.refilling.get(signer);
      if (!refill) {
        refill = this.refill(signer).finally(() => this.refilling.delete(signer));
        this.refilling.set(signer, refill);
      }
      await refill;
    }
  }

  private async refill(signer: ListSigner): Promise<void> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const list = await this.openList(signer);
      if (!list) continue;
      await this.readReservations(list);
      if (list.used.size >= list.size) {
        await this.openNext(signer, list.listId);
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
      const pool = this.pools.get(signer) ?? [];
      pool.push(...indices.map((idx) => ({ listId: list.listId, idx })));
      this.pools.set(signer, pool);
      return;
    }
    throw new Error('status list indices could not be reserved: too many concurrent reservations');
  }

  /** The newest list of `signer`, as the registry names it now (another instance may have opened one). */
  private lastOf(signer: ListSigner): RegisteredList | undefined {
    for (let i = this.lists.length - 1; i >= 0; i--) if (this.lists[i]!.signer === signer) return this.lists[i];
    return undefined;
  }

  private async readRegistry(): Promise<void> {
    for (const e of await this.log.readStream(STATUS_LISTS_STREAM, this.registryVersion)) {
      this.lists.push({
        listId: String(e.data.list_id),
        size: Number(e.data.size),
        ...(typeof e.data.signer === 'string' ? { signer: e.data.signer } : {}),
      });
      this.registryVersion = e.version;
    }
  }

  /** The list `signer` fills; undefined when one had to be opened first (the caller tries again). */
  private async openList(signer: ListSigner): Promise<OpenList | undefined> {
    await this.readRegistry();
    const last = this.lastOf(signer);
    if (last === undefined) {
      await this.openNext(signer, undefined);
      return undefined;
    }
    const current = this.current.get(signer);
    if (current?.listId === last.listId) return current;
    const opened = { listId: last.listId, size: last.size, version: 0, used: new Set<number>() };
    this.current.set(signer, opened);
    return opened;
  }

  private async readReservations(list: OpenList): Promise<void> {
    for (const e of await this.log.readStream(statusListStream(list.listId), list.version)) {
      for (const idx of e.data.indices as number[]) list.used.add(idx);
      list.version = e.version;
    }
  }

  /** Opens a list of `signer` after `full` (none yet: its first); someone else having done so is as good. */
  private async openNext(signer: ListSigner, full: string | undefined): Promise<void> {
    if (this.lastOf(signer)?.listId !== full) return;
    const listId = randomToken(12);
    try {
      await this.log.append(STATUS_LISTS_STREAM, this.registryVersion, [
        {
          type: 'status_list.opened',
          data: { list_id: listId, size: this.size, bits: STATUS_BITS, signer },
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
  allocate: (signer: ListSigner) => allocator.allocate(signer),
  tokenUri: (listId: string) => urls.tokenUri(listId),
  bitstringUrl: (purpose: 'revocation' | 'suspension', listId: string) => urls.bitstringUrl(purpose, listId),
});
