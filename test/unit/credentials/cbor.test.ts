import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Tag, decodeCbor, encodeCbor, fullDate, tdate } from '../../../services/credentials/mdoc/cbor.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const unhex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

describe('deterministic CBOR', () => {
  it.each([
    [0, '00'],
    [23, '17'],
    [24, '1818'],
    [100, '1864'],
    [1000, '1903e8'],
    [1000000, '1a000f4240'],
    [1000000000000, '1b000000e8d4a51000'],
    [-1, '20'],
    [-1000, '3903e7'],
    ['', '60'],
    ['IETF', '6449455446'],
    [unhex('01020304'), '4401020304'],
    [[], '80'],
    [[1, 2, 3], '83010203'],
    [new Map(), 'a0'],
    [
      new Map([
        [1, 2],
        [3, 4],
      ]),
      'a201020304',
    ],
    [{ a: 1, b: [2, 3] }, 'a26161016162820203'],
    [false, 'f4'],
    [true, 'f5'],
    [null, 'f6'],
    [new Tag('2013-03-21T20:04:00Z', 0), 'c074323031332d30332d32315432303a30343a30305a'],
  ] as [unknown, string][])('RFC 8949 Appendix A: %o -> %s', (value, expected) => {
    expect(hex(encodeCbor(value))).toBe(expected);
  });

  it('sorts map keys by the bytewise order of their encodings (RFC 8949 §4.2.1), whatever the insertion order', () => {
    const a = new Map<unknown, unknown>([
      ['aa', 5],
      ['b', 1],
      [-1, 4],
      ['a', 2],
      [10, 3],
    ]);
    expect(hex(encodeCbor(a))).toBe('a50a03200461610261620162616105');
    expect(hex(encodeCbor({ b: 1, a: 2 }))).toBe(hex(encodeCbor({ a: 2, b: 1 })));
  });

  it('refuses duplicate keys and JS Dates (a date must be chosen as tdate or full-date)', () => {
    expect(() =>
      encodeCbor(
        new Map<unknown, unknown>([
          [1, 'a'],
          [1n, 'b'],
        ]),
      ),
    ).toThrow(/duplicate/);
    expect(() => encodeCbor(new Date())).toThrow(/tag 0/);
    expect(hex(encodeCbor(tdate(1_767_225_600)))).toBe(hex(encodeCbor(new Tag('2026-01-01T00:00:00Z', 0))));
    expect(hex(encodeCbor(fullDate('1990-04-12')))).toBe('d903ec6a313939302d30342d3132');
  });

  const leaf = fc.oneof(
    fc.integer(),
    fc.maxSafeInteger(),
    fc.maxSafeNat(),
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.uint8Array({ maxLength: 40 }),
    fc
      .date({ noInvalidDate: true, min: new Date(0), max: new Date(4102444800000) })
      .map((d) => tdate(d.getTime() / 1000)),
    fc
      .date({ noInvalidDate: true, min: new Date(0), max: new Date(4102444800000) })
      .map((d) => fullDate(d.toISOString().slice(0, 10))),
  );
  const value = fc.letrec<{ v: unknown }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('v'), { maxLength: 5 }),
      fc
        .uniqueArray(fc.tuple(fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: -1000, max: 1000 })), tie('v')), {
          maxLength: 5,
          selector: ([k]) => `${typeof k}:${k}`,
        })
        .map((e) => new Map(e)),
      tie('v').map((inner) => new Tag(encodeCbor(inner), 24)),
    ),
  })).v;

  it('property: decode then encode gives back the same bytes, and insertion order never matters', () => {
    fc.assert(
      fc.property(value, (v) => {
        const bytes = encodeCbor(v);
        expect(hex(encodeCbor(decodeCbor(bytes)))).toBe(hex(bytes));
        const reversed = (x: unknown): unknown =>
          x instanceof Map
            ? new Map([...x.entries()].reverse().map(([k, y]) => [k, reversed(y)]))
            : Array.isArray(x)
              ? x.map(reversed)
              : x;
        expect(hex(encodeCbor(reversed(v)))).toBe(hex(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps tag 0 text as written instead of turning it into a Date', () => {
    const decoded = decodeCbor(encodeCbor(new Tag('2026-01-01T00:00:00Z', 0)));
    expect(decoded).toBeInstanceOf(Tag);
    expect((decoded as Tag).value).toBe('2026-01-01T00:00:00Z');
  });

  it('decodes RFC 8949 floats (half, single, double) and refuses indefinite lengths, duplicate keys and trailing bytes', () => {
    expect(
      [
        ['f93c00', 1],
        ['f97bff', 65504],
        ['f90001', 5.960464477539063e-8],
        ['f9c400', -4],
        ['fa47c35000', 100000],
        ['fb3ff199999999999a', 1.1],
      ]
        .map(([h, v]) => [decodeCbor(unhex(h as string)), v])
        .every(([a, b]) => a === b),
    ).toBe(true);
    expect(decodeCbor(unhex('3bffffffffffffffff'))).toBe(-18446744073709551616n);
    expect(() => decodeCbor(unhex('9f0102ff'))).toThrow(/indefinite/);
    expect(() => decodeCbor(unhex('a201020103'))).toThrow(/duplicate/);
    expect(() => decodeCbor(unhex('0101'))).toThrow(/trailing/);
    expect(() => decodeCbor(unhex('5818ff'))).toThrow();
  });

  it('decodes the same shapes after other libraries register process-wide cbor-x tag handlers', async () => {
    await import('@owf/mdoc'); // registers cbor-x extensions for tags 0, 24 and 1004
    const bytes = encodeCbor([
      new Tag('2026-01-01T00:00:00Z', 0),
      new Tag(encodeCbor({ a: 1 }), 24),
      fullDate('1990-04-12'),
    ]);
    const decoded = decodeCbor(bytes) as Tag[];
    expect(decoded.every((t) => t instanceof Tag)).toBe(true);
    expect(hex(encodeCbor(decoded))).toBe(hex(bytes));
  });
});
