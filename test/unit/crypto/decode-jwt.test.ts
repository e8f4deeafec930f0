import fc from 'fast-check';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { decodeJwtClaims, decodeJwtHeader } from '../../../services/crypto/decode-jwt.ts';

/** What a decoder gives: the claims, or the class and message of what it threw. */
function outcome(decode: (jwt: string) => unknown, jwt: string): unknown {
  try {
    return { claims: decode(jwt) };
  } catch (error) {
    return { threw: (error as Error).constructor.name, message: (error as Error).message };
  }
}

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
/** Encoded parts: JSON of any kind (objects most often), raw bytes, and any text at all. */
const payloadPart = fc.oneof(
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })).map((o) => b64(JSON.stringify(o))),
  fc.jsonValue({ maxDepth: 2 }).map((v) => b64(JSON.stringify(v) ?? '')),
  fc.uint8Array({ maxLength: 64 }).map(b64),
  fc.string({ maxLength: 40 }),
  fc
    .tuple(
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
      fc.constantFrom('=', '==', '+', '/', ' ', '*', 'A'),
    )
    .map(([o, extra]) => `${b64(JSON.stringify(o))}${extra}`),
);

describe('decodeJwtClaims is jose decodeJwt', () => {
  it('gives the same claims or the same error for any compact-looking input', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        payloadPart,
        fc.string({ maxLength: 12 }),
        fc.nat(3),
        (header, payload, signature, extraDots) => {
          const jwt = [header, payload, signature, ...Array(extraDots === 3 ? 2 : 0).fill('x')].join('.');
          expect(outcome(decodeJwtClaims, jwt)).toEqual(outcome(decodeJwt, jwt));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('agrees on the edge cases: no payload, padding, invalid UTF-8, arrays, five parts', () => {
    for (const jwt of [
      'a..c',
      'a.e30=.c',
      `a.${b64(new Uint8Array([0xff, 0xfe]))}.c`,
      `a.${b64('[1]')}.c`,
      'a.e30.c.d.e',
      'e30',
      'a.e30',
      `a.${b64('{"a":"\uFFFD"}')}.c`,
    ]) {
      expect(outcome(decodeJwtClaims, jwt)).toEqual(outcome(decodeJwt, jwt));
    }
    expect(decodeJwtClaims(`h.${b64('{"iss":"x","n":1}')}.s`)).toEqual({ iss: 'x', n: 1 });
  });
});

describe('decodeJwtHeader is jose decodeProtectedHeader', () => {
  it('gives the same header or the same error for any compact-looking JWS or JWE', () => {
    fc.assert(
      fc.property(
        payloadPart,
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        fc.constantFrom(0, 1, 2, 3, 4, 5),
        (header, rest, signature, dots) => {
          const token = [header, ...Array(dots).fill(rest)].join('.') + (dots > 0 ? signature : '');
          expect(outcome(decodeJwtHeader, token)).toEqual(outcome((t) => decodeProtectedHeader(t), token));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('agrees on the edge cases: empty header, padding, invalid UTF-8, arrays, four parts', () => {
    for (const token of [
      '.e30.c',
      'e30=.b.c',
      `${b64(new Uint8Array([0xff, 0xfe]))}.b.c`,
      `${b64('[1]')}.b.c`,
      'e30.b.c.d',
      'e30.b.c.d.e',
      'e30',
      `${b64('{"a":"\uFFFD"}')}.b.c`,
    ]) {
      expect(outcome(decodeJwtHeader, token)).toEqual(outcome((t) => decodeProtectedHeader(t), token));
    }
    expect(decodeJwtHeader(`${b64('{"alg":"ES256","typ":"kb+jwt"}')}.p.s`)).toEqual({ alg: 'ES256', typ: 'kb+jwt' });
  });
});
