import fc from 'fast-check';
import { decodeProtectedHeader, generateKeyPair, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signJwt, type JwsSigner } from '../../../services/crypto/jws.ts';

// Issue 46 §5: signJwt signs on the event loop with node:crypto instead of jose (the shadow kept); jose
// verifies every token it makes, for any payload, with each algorithm our keys use.
const signers: Array<{ signer: JwsSigner; publicKey: CryptoKey }> = [];
beforeAll(async () => {
  for (const [alg, options] of [
    ['ES256', {}],
    ['RS256', { modulusLength: 2048 }],
    ['EdDSA', { crv: 'Ed25519' }],
  ] as const) {
    const { publicKey, privateKey } = await generateKeyPair(alg, { ...options, extractable: true });
    signers.push({ signer: { alg, privateKey, kid: `k-${alg}` } as JwsSigner, publicKey: publicKey as CryptoKey });
  }
});

const payloads = fc.dictionary(
  fc
    .string({ minLength: 1, maxLength: 8 })
    .filter((k) => !['exp', 'nbf', 'iat', 'iss', 'aud', 'sub', 'jti'].includes(k)),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 6 },
);

describe('signJwt', () => {
  it('makes tokens jose verifies, with the header and payload given', async () => {
    await fc.assert(
      fc.asyncProperty(payloads, fc.nat(2), async (payload, which) => {
        const { signer, publicKey } = signers[which];
        const token = signJwt(signer, { typ: 'test+jwt' }, payload);
        const verified = await jwtVerify(token, publicKey, { algorithms: [signer.alg] });
        expect(JSON.parse(JSON.stringify(verified.payload))).toEqual(JSON.parse(JSON.stringify(payload)));
        expect(decodeProtectedHeader(token)).toEqual({ alg: signer.alg, typ: 'test+jwt', kid: signer.kid });
      }),
      { numRuns: 60 },
    );
  });

  it('a token whose payload was changed after signing no longer verifies', async () => {
    const { signer, publicKey } = signers[0];
    const [header, , signature] = signJwt(signer, {}, { n: 1 }).split('.');
    const altered = `${header}.${Buffer.from('{"n":2}').toString('base64url')}.${signature}`;
    await expect(jwtVerify(altered, publicKey)).rejects.toThrow();
  });
});
