import fc from 'fast-check';
import { exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { signJwt, verifyOwnJwtSync } from '../../../services/crypto/jws.ts';
import type { SigningKey } from '../../../services/keys.ts';

/** The synchronous check of our own access tokens agrees with jose's jwtVerify on every claim it covers. */
describe('verifyOwnJwtSync', () => {
  it('accepts and refuses exactly what jose jwtVerify accepts and refuses', async () => {
    const make = async (kid: string): Promise<SigningKey> => {
      const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
      return { kid, alg: 'ES256', privateKey, publicKey, publicJwk: await exportJWK(publicKey) };
    };
    const [ours, other] = [await make('k1'), await make('k2')];
    const nowMs = 1_800_000_000_000;
    const nowS = nowMs / 1000;
    const keyFor = (kid: string | undefined) => (kid === 'k1' ? ours : undefined);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          iss: fc.constantFrom('https://issuer.test', 'https://other.test', undefined),
          aud: fc.constantFrom<unknown>('https://issuer.test', ['x', 'https://issuer.test'], ['x'], 'x', undefined),
          exp: fc.option(fc.integer({ min: nowS - 5, max: nowS + 5 }), { nil: undefined }),
          nbf: fc.option(fc.integer({ min: nowS - 5, max: nowS + 5 }), { nil: undefined }),
          typ: fc.constantFrom('at+jwt', 'JWT', undefined),
          signer: fc.constantFrom('ours', 'other'),
          tamper: fc.boolean(),
        }),
        async (c) => {
          const claims = Object.fromEntries(
            Object.entries({ iss: c.iss, aud: c.aud, exp: c.exp, nbf: c.nbf, sub: 'alice' }).filter(
              ([, v]) => v !== undefined,
            ),
          );
          let token = signJwt(
            c.signer === 'ours' ? ours : { ...other, kid: 'k1' },
            c.typ ? { typ: c.typ } : {},
            claims,
          );
          if (c.tamper)
            token = `${token.slice(0, token.lastIndexOf('.'))}.${Buffer.from('x'.repeat(64)).toString('base64url')}`;
          const expected = await jwtVerify(token, ours.publicKey, {
            issuer: 'https://issuer.test',
            audience: 'https://issuer.test',
            typ: 'at+jwt',
            currentDate: new Date(nowMs),
          }).then(
            (r) => r.payload,
            () => undefined,
          );
          const got = verifyOwnJwtSync(token, keyFor, {
            issuer: 'https://issuer.test',
            audience: 'https://issuer.test',
            typ: 'at+jwt',
            now: nowMs,
          });
          expect(got).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
