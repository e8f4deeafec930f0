import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventLog } from '../../../adapters/store/sqlite-event-log.ts';
import { clientPlacesMachine } from '../../../machines/client-places.ts';
import { fold } from '../../../services/actors/fold.ts';
import { ManualClock } from '../../../services/clock.ts';
import { ClientPlaces, UNMADE_HOLDER_MS, type PlaceRule } from '../../../services/places/client-places.ts';

// Issue 45 items 36 and 39: per-caller limits kept in the log. The HTTP behaviour across two instances is in
// test/integration/store/per-caller-limits.test.ts; here the rules of counting, on a real SQLite log.
const dir = mkdtempSync(join(tmpdir(), 'places-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('client places', () => {
  it('never holds more places than the limit, whatever events are folded', () => {
    const event = fc.oneof(
      fc.record({
        type: fc.constant('place.taken'),
        at: fc.nat(),
        holder: fc.constantFrom('a', 'b', 'c', 'd'),
        limit: fc.integer({ min: 0, max: 3 }),
      }),
      fc.record({ type: fc.constant('place.released'), at: fc.nat(), holder: fc.constantFrom('a', 'b', 'c', 'd') }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        let snapshot = fold(clientPlacesMachine, []);
        for (const e of events) {
          const before = snapshot.context.places.length;
          snapshot = fold(clientPlacesMachine, [{ type: e.type, at: e.at, data: e }], snapshot);
          const held = snapshot.context.places.map((p: { holder: string }) => p.holder);
          expect(new Set(held).size).toBe(held.length);
          if (e.type === 'place.taken') expect(held.length).toBeLessThanOrEqual(Math.max(before, e.limit));
        }
      }),
    );
  });

  it('counts earlier holders in once, gives back lapsed places before counting, and refuses at the limit', async () => {
    const log = new SqliteEventLog(join(dir, 'events.db'));
    const clock = new ManualClock(1_000_000);
    const places = new ClientPlaces(log, clock, new Uint8Array(32).fill(7));
    const made = new Set(['old-1']);
    const rule: PlaceRule = {
      kind: 'test',
      limit: 2,
      heldBefore: async () => ['old-1'],
      // A holder never made lapses UNMADE_HOLDER_MS after its place was taken.
      lapsed: async (held, now) =>
        held.filter((p) => !made.has(p.holder) && now - p.at >= UNMADE_HOLDER_MS).map((p) => p.holder),
    };
    expect(await places.take(rule, 'caller', 'new-1')).toBe(true); // old-1 counted in: 2 held
    expect(await places.take(rule, 'caller', 'new-2')).toBe(false);
    expect(await places.take(rule, 'other caller', 'new-2')).toBe(true); // each caller has its own places
    clock.advance(UNMADE_HOLDER_MS);
    // new-1 was never made: its place lapsed and is taken by new-2.
    expect(await places.take(rule, 'caller', 'new-2')).toBe(true);
    expect(await places.take(rule, 'caller', 'new-3')).toBe(false);
    await places.release(rule, 'caller', 'old-1');
    made.add('new-3');
    expect(await places.take(rule, 'caller', 'new-3')).toBe(true);
    log.close();
  });
});
