import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayOf, isJsonObject, memberAt, objectOf, stringOf, stringsOf } from '../../../services/untrusted/json.ts';
import { jwksKeys } from '../../../services/untrusted/jwk.ts';

// Issue 46 §6: JSON from another origin is read as unknown and narrowed member by member.
describe('reading untrusted JSON', () => {
  it('memberAt never throws and returns only own members, through objects by name and arrays by index', () => {
    fc.assert(
      fc.property(
        fc.anything(),
        fc.array(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString'), fc.integer())),
        (value, path) => {
          const found = memberAt(value, ...path);
          // Walked by hand: an own member of an object for a name, an element of an array for an index.
          let expected: unknown = value;
          for (const step of path) {
            if (typeof step === 'number')
              expected = Array.isArray(expected) && step >= 0 && step < expected.length ? expected[step] : undefined;
            else
              expected =
                expected !== null &&
                typeof expected === 'object' &&
                !Array.isArray(expected) &&
                Object.hasOwn(expected, step)
                  ? (expected as Record<string, unknown>)[step]
                  : undefined;
          }
          expect(found).toBe(expected);
        },
      ),
    );
  });

  it('never reaches a prototype or a constructor', () => {
    expect(memberAt({}, '__proto__')).toBeUndefined();
    expect(memberAt({}, 'constructor')).toBeUndefined();
    expect(memberAt([1], 'length')).toBeUndefined();
    expect(memberAt(JSON.parse('{"__proto__": {"a": 1}}'), '__proto__', 'a')).toBe(1);
    expect(memberAt({ a: [{ b: 'x' }] }, 'a', 0, 'b')).toBe('x');
    expect(memberAt({ a: [{ b: 'x' }] }, 'a', 1, 'b')).toBeUndefined();
  });

  it('narrows by kind: objects are not arrays or null, strings and lists keep only their kind', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(isJsonObject(value)).toBe(typeof value === 'object' && value !== null && !Array.isArray(value));
        expect(objectOf(value)).toBe(isJsonObject(value) ? value : undefined);
        expect(stringOf(value)).toBe(typeof value === 'string' ? value : undefined);
        expect(arrayOf(value)).toEqual(Array.isArray(value) ? value : []);
        expect(stringsOf(value).every((v) => typeof v === 'string')).toBe(true);
      }),
    );
  });

  it('keeps the JWKs of a set whose string members are strings, and drops the rest', () => {
    const ec = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k1' };
    expect(jwksKeys({ keys: [ec, { kty: 1 }, { crv: 'P-256' }, { kty: 'EC', kid: 7 }, null, 'key'] })).toEqual([ec]);
    expect(jwksKeys({ keys: 'none' })).toEqual([]);
    expect(jwksKeys([ec])).toEqual([]);
    expect(jwksKeys(undefined)).toEqual([]);
  });
});
