import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../services/bounded-cache.ts';

type Op = { kind: 'set' | 'get' | 'delete'; key: number };

/** The reference: keys least to most recently used in an array, the oldest dropped past capacity. */
function referenceRun(capacity: number, ops: Op[]) {
  const order: number[] = [];
  const values = new Map<number, number>();
  const seen: Array<number | undefined> = [];
  ops.forEach((op, i) => {
    const at = order.indexOf(op.key);
    if (op.kind === 'get') {
      seen.push(at >= 0 ? values.get(op.key) : undefined);
      if (at >= 0) order.push(...order.splice(at, 1));
    } else if (op.kind === 'delete') {
      if (at >= 0) order.splice(at, 1);
    } else {
      if (at >= 0) order.splice(at, 1);
      order.push(op.key);
      values.set(op.key, i);
      if (order.length > capacity) order.shift();
    }
  });
  return { order, seen };
}

describe('BoundedCache', () => {
  it('keeps exactly the most recently used entries, in order, whatever the sequence of set, get and delete', () => {
    const op = fc.record({
      kind: fc.constantFrom('set', 'set', 'get', 'delete'),
      key: fc.integer({ min: 0, max: 12 }),
    }) as fc.Arbitrary<Op>;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 300 }), (capacity, ops) => {
        const cache = new BoundedCache<number, number>(capacity);
        const seen: Array<number | undefined> = [];
        ops.forEach((o, i) => {
          if (o.kind === 'get') seen.push(cache.get(o.key));
          else if (o.kind === 'delete') cache.delete(o.key);
          else cache.set(o.key, i);
        });
        const expected = referenceRun(capacity, ops);
        expect(seen).toEqual(expected.seen);
        expect(cache.keys()).toEqual(expected.order);
        expect(cache.size).toBe(expected.order.length);
      }),
      { numRuns: 500 },
    );
  });

  it('holds the newest entries at a large capacity after many evictions', () => {
    const cache = new BoundedCache<string, number>(10_000);
    for (let i = 0; i < 60_000; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(10_000);
    expect(cache.keys()[0]).toBe('k50000');
    expect(cache.get('k49999')).toBeUndefined();
  });
});
