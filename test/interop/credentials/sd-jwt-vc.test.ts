/**
 * SD-JWT VC cross-checks against @sd-jwt/sd-jwt-vc 0.19.0 (with @sd-jwt/crypto-nodejs), both ways:
 * our credentials and presentations verified by that library, and its credentials and
 * presentations verified by ours. The library does not check KB-JWT freshness (iat window) or
 * `aud`; those are covered by the unit tests only.
 */
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import fc from 'fast-check';
import { exportJWK, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateHolderKey, type KeyPair } from '../../../services/credentials/keys/index.ts';
import {
  issueSdJwtVc,
  presentSdJwtVc,
  splitSdJwt,
  verifySdJwtVc,
  type ClaimPath,
} from '../../../services/credentials/sd-jwt/index.ts';
import { AUD, ISS, NOW, PID_CLAIMS, PID_DISCLOSABLE } from '../../unit/credentials/helpers.ts';

let issuer: KeyPair;
let holder: KeyPair;
let issuerPrivate: JWK;
let holderPrivate: JWK;
let lib: SDJwtVcInstance;
let jwks: { keys: JWK[] };

beforeAll(async () => {
  issuer = await generateHolderKey('ES256', { extractable: true });
  holder = await generateHolderKey('ES256', { extractable: true });
  issuerPrivate = await exportJWK(issuer.privateKey);
  holderPrivate = await exportJWK(holder.privateKey);
  jwks = { keys: [{ ...issuer.publicJwk, kid: issuer.kid }] };
  lib = new SDJwtVcInstance({
    signer: await ES256.getSigner(issuerPrivate),
    signAlg: 'ES256',
    verifier: await ES256.getVerifier(issuer.publicJwk),
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
    kbSigner: await ES256.getSigner(holderPrivate),
    kbSignAlg: 'ES256',
    kbVerifier: await ES256.getVerifier(holder.publicJwk),
  });
});

const ours = (arrayDecoys = 3) =>
  issueSdJwtVc({
    issuer: { alg: 'ES256', privateKey: issuer.privateKey, kid: issuer.kid, iss: ISS },
    vct: 'urn:eudi:pid:1',
    claims: PID_CLAIMS,
    disclosable: PID_DISCLOSABLE,
    holderJwk: holder.publicJwk,
    now: NOW,
    expiresIn: 3600,
    decoys: 3,
    arrayDecoys,
  });
const kb = (nonce = 'nonce-1') => ({
  holder: { alg: 'ES256' as const, privateKey: holder.privateKey },
  aud: AUD,
  nonce,
  now: NOW,
});

/** The library's presentation frame for a list of our claim paths. */
function frameOf(paths: ClaimPath[]): Record<string, unknown> {
  const frame: Record<string, unknown> = {};
  for (const path of paths) {
    let node = frame;
    path.forEach((step, i) => {
      const key = String(step);
      if (i === path.length - 1) node[key] = node[key] && typeof node[key] === 'object' ? node[key] : true;
      else node = (node[key] = typeof node[key] === 'object' ? node[key] : {}) as Record<string, unknown>;
    });
  }
  return frame;
}

describe('our SD-JWT VCs verified by @sd-jwt/sd-jwt-vc', () => {
  it('a full credential verifies and unpacks to the same claims', async () => {
    const { sdJwt } = await ours();
    const r = await lib.verify(sdJwt, { currentDate: NOW } as never);
    expect(r.header).toMatchObject({ typ: 'dc+sd-jwt' });
    expect(r.payload).toMatchObject({ ...PID_CLAIMS, vct: 'urn:eudi:pid:1', iss: ISS });
  });

  it('property: any presented subset with our KB-JWT verifies there (signature, digests, nonce, sd_hash) with the same claims', async () => {
    const { sdJwt } = await ours();
    await fc.assert(
      fc.asyncProperty(fc.subarray(PID_DISCLOSABLE), async (paths) => {
        const presentation = await presentSdJwtVc(sdJwt, { disclose: paths, keyBinding: kb() });
        const theirs = await lib.verify(presentation, { keyBindingNonce: 'nonce-1', currentDate: NOW } as never);
        const mine = await verifySdJwtVc(presentation, {
          issuerJwks: jwks,
          now: NOW,
          keyBinding: { aud: AUD, nonce: 'nonce-1' },
        });
        expect(mine.valid).toBe(true);
        if (mine.valid) expect(theirs.payload).toEqual(mine.claims);
        expect(theirs.kb?.payload).toMatchObject({ aud: AUD, nonce: 'nonce-1' });
      }),
      { numRuns: 30 },
    );
  });

  it('the library rejects our presentation for another nonce and our tampered presentation', async () => {
    const { sdJwt } = await ours();
    const presentation = await presentSdJwtVc(sdJwt, { disclose: [['given_name']], keyBinding: kb('nonce-1') });
    await expect(lib.verify(presentation, { keyBindingNonce: 'nonce-2', currentDate: NOW } as never)).rejects.toThrow(
      /nonce/i,
    );
    const { issuerJwt, disclosures, kbJwt } = splitSdJwt(
      await presentSdJwtVc(sdJwt, { disclose: 'all', keyBinding: kb() }),
    );
    const sdHashBroken = `${[issuerJwt, ...disclosures.slice(1)].join('~')}~${kbJwt}`;
    await expect(lib.verify(sdHashBroken, { keyBindingNonce: 'nonce-1', currentDate: NOW } as never)).rejects.toThrow(
      /sd_hash/i,
    );
  });

  it('the library as holder presents our credential (array decoys off: its frames index arrays by issued position); we verify it', async () => {
    const { sdJwt } = await ours(0);
    const presentation = await lib.present(
      sdJwt,
      frameOf([
        ['address', 'locality'],
        ['nationalities', 1],
      ]) as never,
      { kb: { payload: { aud: AUD, nonce: 'nonce-9', iat: NOW } } } as never,
    );
    const r = await verifySdJwtVc(presentation, {
      issuerJwks: jwks,
      now: NOW,
      keyBinding: { aud: AUD, nonce: 'nonce-9' },
    });
    expect(r.valid).toBe(true);
    if (r.valid)
      expect(r.claims).toMatchObject({ address: { locality: 'Paris', country: 'FR' }, nationalities: ['DE'] });
  });
});

describe('@sd-jwt/sd-jwt-vc credentials verified by ours', () => {
  const theirs = (header?: Record<string, unknown>) =>
    lib.issue(
      {
        iss: ISS,
        iat: NOW,
        exp: NOW + 3600,
        vct: 'urn:eudi:pid:1',
        cnf: { jwk: holder.publicJwk },
        ...PID_CLAIMS,
      } as never,
      {
        _sd: ['given_name', 'family_name', 'birthdate', 'address'],
        address: { _sd: ['street_address', 'locality'] },
        nationalities: { _sd: [0, 1] },
        age_equal_or_over: { _sd: ['18', '21'] },
        _sd_decoy: 2,
      } as never,
      header ? ({ header } as never) : undefined,
    );

  it('a full credential verifies, with the same claims the library unpacks', async () => {
    const credential = await theirs();
    const r = await verifySdJwtVc(credential, { issuerJwks: jwks, now: NOW });
    expect(r.valid).toBe(true);
    if (r.valid) expect(r.claims).toEqual((await lib.verify(credential, { currentDate: NOW } as never)).payload);
  });

  it('property: the library presents any subset with a KB-JWT; we verify it and see exactly its claims', async () => {
    const credential = await theirs();
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(PID_DISCLOSABLE),
        fc.string({ minLength: 1, maxLength: 16 }),
        async (paths, nonce) => {
          const presentation = await lib.present(
            credential,
            frameOf(paths) as never,
            { kb: { payload: { aud: AUD, nonce, iat: NOW } } } as never,
          );
          const r = await verifySdJwtVc(presentation, { issuerJwks: jwks, now: NOW, keyBinding: { aud: AUD, nonce } });
          expect(r.valid).toBe(true);
          if (r.valid)
            expect(r.claims).toEqual(
              (await lib.verify(presentation, { keyBindingNonce: nonce, currentDate: NOW } as never)).payload,
            );
        },
      ),
      { numRuns: 30 },
    );
  });

  it('we accept the library credential with typ vc+sd-jwt, and name the failing check on its presentations', async () => {
    expect((await verifySdJwtVc(await theirs({ typ: 'vc+sd-jwt' }), { issuerJwks: jwks, now: NOW })).valid).toBe(true);
    const presentation = await lib.present(
      await theirs(),
      { given_name: true } as never,
      { kb: { payload: { aud: AUD, nonce: 'n', iat: NOW - 3600 } } } as never,
    );
    expect(
      await verifySdJwtVc(presentation, { issuerJwks: jwks, now: NOW, keyBinding: { aud: AUD, nonce: 'n' } }),
    ).toMatchObject({ valid: false, check: 'kb_freshness' });
    const fresh = await lib.present(
      await theirs(),
      { given_name: true } as never,
      { kb: { payload: { aud: AUD, nonce: 'n', iat: NOW } } } as never,
    );
    expect(
      await verifySdJwtVc(fresh, { issuerJwks: jwks, now: NOW, keyBinding: { aud: AUD, nonce: 'other' } }),
    ).toMatchObject({ valid: false, check: 'nonce' });
    expect(
      await verifySdJwtVc(fresh, {
        issuerJwks: jwks,
        now: NOW,
        keyBinding: { aud: 'https://other.example', nonce: 'n' },
      }),
    ).toMatchObject({ valid: false, check: 'aud' });
    const parts = presentation.split('~');
    parts[1] = Buffer.from(JSON.stringify(['salt', 'given_name', 'Mallory'])).toString('base64url');
    expect(
      await verifySdJwtVc(parts.join('~'), { issuerJwks: jwks, now: NOW, keyBinding: { aud: AUD, nonce: 'n' } }),
    ).toMatchObject({ valid: false, check: 'disclosure_unreferenced' });
  });
});
