import fc from 'fast-check';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_S, failedTimeClaim } from '../../../services/crypto/time-claims.ts';
import { verifyDPoPProof } from '../../../services/dpop/proof.ts';
import { checkProofClaims } from '../../../services/issuer/proofs.ts';

// Issue 30 (time and flakiness): one 15 s skew for every JWT from elsewhere. A client whose clock runs
// up to 15 s ahead (or whose token expired up to 15 s ago) passes; 16 s fails.
const NOW_S = 1_800_000_000;
const within = fc.integer({ min: 0, max: CLOCK_SKEW_S - 1 }); // up to 14 s
const beyond = fc.integer({ min: CLOCK_SKEW_S + 1, max: 3600 }); // 16 s and more

describe('clock skew (property)', () => {
  it('is 15 s', () => expect(CLOCK_SKEW_S).toBe(15));

  it('time claims: iat and nbf up to 14 s ahead and exp up to 14 s past pass; 16 s fails', () => {
    fc.assert(
      fc.property(within, beyond, fc.constantFrom('iat', 'nbf') as fc.Arbitrary<'iat' | 'nbf'>, (ok, late, claim) => {
        expect(failedTimeClaim({ [claim]: NOW_S + ok }, NOW_S)).toBeUndefined();
        expect(failedTimeClaim({ [claim]: NOW_S + late }, NOW_S)).toBe(claim);
        expect(failedTimeClaim({ exp: NOW_S - ok }, NOW_S)).toBeUndefined();
        expect(failedTimeClaim({ exp: NOW_S - late }, NOW_S)).toBe('exp');
      }),
    );
  });

  it('key proofs: iat up to 14 s ahead passes, 16 s fails', () => {
    const context = { issuer: 'https://issuer.example', algs: ['ES256'], nowMs: NOW_S * 1000 };
    fc.assert(
      fc.property(within, beyond, (ok, late) => {
        expect(checkProofClaims({ aud: context.issuer, iat: NOW_S + ok, nonce: 'n' }, context)).toBe('n');
        expect(() => checkProofClaims({ aud: context.issuer, iat: NOW_S + late, nonce: 'n' }, context)).toThrow(/iat/);
      }),
    );
  });

  it('DPoP proofs: iat and nbf up to 14 s ahead and exp 14 s past pass, 16 s fails', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const proof = (claims: Record<string, number>) =>
      new SignJWT({ htm: 'POST', htu: 'https://as.example/token', jti: crypto.randomUUID(), iat: NOW_S, ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(privateKey);
    const check = async (claims: Record<string, number>) =>
      verifyDPoPProof(await proof(claims), {
        method: 'POST',
        url: 'https://as.example/token',
        nowMs: NOW_S * 1000,
      }).then(
        () => true,
        () => false,
      );
    await fc.assert(
      fc.asyncProperty(within, beyond, async (ok, late) => {
        expect(await check({ iat: NOW_S + ok })).toBe(true);
        expect(await check({ iat: NOW_S + late })).toBe(false);
        expect(await check({ nbf: NOW_S + ok })).toBe(true);
        expect(await check({ nbf: NOW_S + late })).toBe(false);
        expect(await check({ exp: NOW_S - ok })).toBe(true);
        expect(await check({ exp: NOW_S - late })).toBe(false);
      }),
      { numRuns: 30 },
    );
  });
});
