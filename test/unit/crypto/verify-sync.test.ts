import fc from 'fast-check';
import {
  CompactSign,
  calculateJwkThumbprint,
  compactVerify,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  canVerifySync,
  headerVerifiableSync,
  jwkThumbprintSync,
  verifyJwsAsync,
  verifyJwsSync,
} from '../../../services/crypto/jws.ts';

type Pair = { alg: string; jwk: JWK; privateKey: CryptoKey };
const pairs: Pair[] = [];

beforeAll(async () => {
  for (const [alg, options] of [
    ['ES256', {}],
    ['EdDSA', { crv: 'Ed25519' }],
    ['ES384', {}],
  ] as const) {
    const { publicKey, privateKey } = await generateKeyPair(alg, { ...options, extractable: true });
    pairs.push({ alg, jwk: await exportJWK(publicKey), privateKey: privateKey as CryptoKey });
  }
});

async function joseVerifies(jws: string, jwk: JWK, alg: string): Promise<boolean> {
  try {
    await compactVerify(jws, await importJWK(jwk, alg));
    return true;
  } catch {
    return false;
  }
}

/** Flips one character of the compact serialization (any of its three parts). */
function mutate(jws: string, index: number, replacement: string): string {
  const at = index % jws.length;
  return jws.slice(0, at) + replacement + jws.slice(at + 1);
}

describe('JWS verification with node:crypto (on the event loop and on the thread pool)', () => {
  it('agrees with jose on genuine, altered and mismatched-key signatures', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(2),
        fc.nat(2),
        fc.uint8Array({ maxLength: 64 }),
        fc.option(fc.tuple(fc.nat(), fc.constantFrom('A', 'b', '_', '-', '.', '='))),
        async (signer, verifier, payload, change) => {
          const { alg, privateKey } = pairs[signer];
          const jws = await new CompactSign(payload).setProtectedHeader({ alg }).sign(privateKey);
          const candidate = change ? mutate(jws, change[0], change[1]) : jws;
          const key = pairs[verifier];
          const header = { alg };
          if (!canVerifySync(header, key.jwk, alg)) return;
          const expected = await joseVerifies(candidate, key.jwk, alg);
          expect(verifyJwsSync(candidate, key.jwk as Record<string, unknown>, alg)).toBe(expected);
          // The thread-pool form answers the same.
          expect(await verifyJwsAsync(candidate, key.jwk as Record<string, unknown>, alg)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves crit, b64, other algorithms and curves that do not match the algorithm to jose', () => {
    const [es256, eddsa, es384] = pairs;
    expect(canVerifySync({ alg: 'ES256' }, es256.jwk, 'ES256')).toBe(true);
    expect(canVerifySync({ alg: 'EdDSA' }, eddsa.jwk, 'EdDSA')).toBe(true);
    expect(canVerifySync({ alg: 'ES256', crit: ['x'] }, es256.jwk, 'ES256')).toBe(false);
    expect(canVerifySync({ alg: 'ES256', b64: false }, es256.jwk, 'ES256')).toBe(false);
    expect(canVerifySync({ alg: 'ES384' }, es384.jwk, 'ES384')).toBe(false);
    expect(canVerifySync({ alg: 'ES256' }, es384.jwk, 'ES256')).toBe(false);
    expect(canVerifySync({ alg: 'ES256' }, eddsa.jwk, 'ES256')).toBe(false);
    expect(canVerifySync({ alg: 'EdDSA' }, es256.jwk, 'ES256')).toBe(false);
    expect(headerVerifiableSync({ alg: 'ES256' })).toBe(true);
    expect(headerVerifiableSync({ alg: 'EdDSA' })).toBe(true);
    expect(headerVerifiableSync({ alg: 'RS256' })).toBe(false);
    expect(headerVerifiableSync({ alg: 'ES256', crit: ['b64'], b64: false })).toBe(false);
    expect(headerVerifiableSync({})).toBe(false);
  });

  it('computes the RFC 7638 thumbprint jose computes, and the RFC 7638 §3.1 example', async () => {
    for (const { jwk } of pairs)
      expect(jwkThumbprintSync(jwk as Record<string, unknown>)).toBe(await calculateJwkThumbprint(jwk));
    const rfcExample = {
      kty: 'RSA',
      n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    };
    expect(jwkThumbprintSync(rfcExample)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });
});
