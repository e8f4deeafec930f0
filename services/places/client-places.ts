import { clientPlacesMachine, type Place } from '../../machines/client-places.ts';
import { ActorRuntime } from '../actors/runtime.ts';
import type { Clock } from '../clock.ts';
import { keyedFingerprint } from '../crypto/fingerprint.ts';
import type { EventLog } from '../event-log.ts';

/** A holder not made this long after its place was taken died before it was (a crash between the two). */
export const UNMADE_HOLDER_MS = 60_000;

/**
 * A caller's concurrent requests on several instances race for its one stream: a command is decided again
 * this often after losing a race (each loss is another request served) before the caller gets 503.
 */
const CONTENDED_RETRIES = 19;

/** A limit of places per caller, and how to tell which places are still held. */
export interface PlaceRule {
  /** The resource limited: a part of the stream id (`places:<kind>:<keyed caller fingerprint>`). */
  kind: string;
  limit: number;
  /** What the caller held before its places were kept in the log (counted in once). */
  heldBefore(caller: string): Promise<string[]>;
  /**
   * Of these places, the holders that no longer hold (a stream deleted, a run ended or abandoned, a
   * holder never made long after its place was taken).
   */
  lapsed(places: readonly Place[], now: number): Promise<string[]>;
}

/**
 * Per-caller limits decided in the log (issue 45 items 36 and 39): a caller's places are one stream,
 * and counting them and taking one is one command of that stream. The log refuses an append on a
 * stream that moved, so two requests, in one process or in two instances on one PostgreSQL, cannot
 * both take the last place. Places whose holder is gone (a crash between taking and using one, a run
 * its instance abandoned) are given back in the same turn, before the count.
 */
export class ClientPlaces {
  private readonly actors: ActorRuntime<typeof clientPlacesMachine>;

  constructor(
    log: EventLog,
    private readonly clock: Clock,
    /** The server secret that keys the caller's fingerprint in the stream id (an address is never stored whole). */
    private readonly fingerprintKey: Uint8Array,
  ) {
    this.actors = ActorRuntime.of(log, clientPlacesMachine, 'places', 10_000, true, CONTENDED_RETRIES);
  }

  private streamOf(rule: PlaceRule, caller: string): string {
    return `${rule.kind}:${keyedFingerprint(this.fingerprintKey, caller)}`;
  }

  /** Takes a place for `holder`; false when the caller already holds `rule.limit` places. */
  async take(rule: PlaceRule, caller: string, holder: string): Promise<boolean> {
    const outcome = await this.actors.execute(this.streamOf(rule, caller), async ({ snapshot }) => {
      const at = this.clock.now();
      const counted = snapshot.context.counted
        ? []
        : [{ type: 'places.counted' as const, at, holders: await rule.heldBefore(caller) }];
      const places = [...snapshot.context.places, ...counted.flatMap((e) => e.holders.map((h) => ({ holder: h, at })))];
      const lapsed = [...new Set(await rule.lapsed(places, at))].filter((h) => places.some((p) => p.holder === h));
      return [
        ...counted,
        ...lapsed.map((h) => ({ type: 'place.released' as const, at, holder: h })),
        { type: 'place.taken' as const, at, holder, limit: rule.limit },
      ];
    });
    return outcome.accepted;
  }

  /** Gives `holder`'s place back (nothing when it holds none). */
  async release(rule: PlaceRule, caller: string, holder: string): Promise<void> {
    await this.actors.execute(this.streamOf(rule, caller), { type: 'place.released', at: this.clock.now(), holder });
  }
}
