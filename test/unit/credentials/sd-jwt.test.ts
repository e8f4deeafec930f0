import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { b64url } from '../../../services/credentials/bytes.ts';
import { generateHolderKey } from '../../../services/credentials/keys/index.ts';
import {
  createDisclosure,
  decodeSdJwt,
  presentSdJwtVc,
  presentWithDisclosures,
  sdHashOf,
  splitSdJwt,
  verifySdJwtVc,
  type ClaimPath,
} from '../../../services/credentials/sd-jwt/index.ts';
import {
  AUD,
  ISS,
  NOW,
  PID_CLAIMS,
  PID_DISCLOSABLE,
  issuePid,
  sdJwtFixture,
  signIssuerJwt,
  type SdJwtFixture,
} from './helpers.ts';

let f: SdJwtFixture;
let credential: string;
beforeAll(async () => {
  f = await sdJwtFixture();
  credential = (await issuePid(f)).sdJwt;
});

const kb = (overrides: Partial<{ aud: string; nonce: string; now: number }> = {}) => ({
  holder: { alg: 'ES256' as const, privateKey: f.holder.privateKey },
  aud: AUD,
  nonce: 'nonce-1',
  now: NOW,
  ...overrides,
});
const verify = (text: string, options: Partial<Parameters<typeof verifySdJwtVc>[1]> = {}) =>
  verifySdJwtVc(text, { issuerJwks: f.jwks, now: NOW, keyBinding: { aud: AUD, nonce: 'nonce-1' }, ...options });

/** The claims a presentation of `paths` must reveal: the full claims projected on those paths (and everything below them). */
function project(claims: Record<string, unknown>, paths: ClaimPath[]): Record<string, unknown> {
  const sd = new Set(PID_DISCLOSABLE.map((p) => JSON.stringify(p)));
  const visible = (path: ClaimPath) => {
    for (let i = 1; i <= path.length; i++) {
      const prefix = path.slice(0, i);
      if (
        sd.has(JSON.stringify(prefix)) &&
        !paths.some(
          (p) =>
            JSON.stringify(p.slice(0, i)) === JSON.stringify(prefix) ||
            JSON.stringify(prefix.slice(0, p.length)) === JSON.stringify(p),
        )
      )
        return false;
    }
    return true;
  };
  const walk = (value: unknown, path: ClaimPath): unknown => {
    if (Array.isArray(value)) return value.flatMap((v, i) => (visible([...path, i]) ? [walk(v, [...path, i])] : []));
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => visible([...path, k]))
          .map(([k, v]) => [k, walk(v, [...path, k])]),
      );
    return value;
  };
  return walk(claims, []) as Record<string, unknown>;
}

describe('SD-JWT VC issuance', () => {
  it('emits typ dc+sd-jwt, _sd_alg sha-256, cnf.jwk, vct, iss, iat, exp; no disclosable value in the clear', async () => {
    const { payload, disclosures, sdJwt } = await issuePid(f);
    const decoded = decodeSdJwt(sdJwt);
    expect(decoded.header).toMatchObject({ typ: 'dc+sd-jwt', alg: 'ES256', kid: f.issuer.kid });
    expect(payload).toMatchObject({
      iss: ISS,
      iat: NOW,
      exp: NOW + 86_400,
      vct: 'urn:eudi:pid:1',
      _sd_alg: 'sha-256',
      cnf: { jwk: f.holder.publicJwk },
    });
    expect(JSON.stringify(payload)).not.toContain('Alice');
    expect(JSON.stringify(payload)).not.toContain('Paris');
    expect(disclosures).toHaveLength(PID_DISCLOSABLE.length);
    // two decoys beside the real digests at the top level, and {"...": digest} elements in the array
    expect((payload._sd as string[]).length).toBe(4 + 2); // given_name, family_name, birthdate, address
    expect((payload.nationalities as unknown[]).length).toBe(2 + 2);
    expect(decoded.claims).toMatchObject(PID_CLAIMS);
  });

  it('nests a child disclosure inside its parent disclosure', async () => {
    const { disclosures } = await issuePid(f);
    const address = disclosures.find((d) => d.name === 'address')!;
    const locality = disclosures.find((d) => d.name === 'locality')!;
    expect((address.value as { _sd: string[] })._sd).toContain(locality.digest);
    expect(address.value).toMatchObject({ country: 'FR' });
  });

  it('refuses to make iss, vct, cnf, exp or status disclosable, or a path that does not exist', async () => {
    await expect(issuePid(f, { claims: { ...PID_CLAIMS, vct: 'x' } as never })).rejects.toThrow(/vct/);
    await expect(issuePid(f, { disclosable: [['nope']] })).rejects.toThrow(/no claim/);
    await expect(issuePid(f, { disclosable: [['nationalities', 7]] })).rejects.toThrow(/no claim/);
  });
});

describe('SD-JWT VC presentation and verification', () => {
  it('presents a chosen subset with a kb+jwt KB-JWT (aud, nonce, iat, sd_hash) that verifies', async () => {
    const presentation = await presentSdJwtVc(credential, {
      disclose: [['given_name'], ['address', 'locality'], ['nationalities', 1]],
      keyBinding: kb(),
    });
    const parts = splitSdJwt(presentation);
    const [h, p] = parts
      .kbJwt!.split('.')
      .slice(0, 2)
      .map((s) => JSON.parse(Buffer.from(s, 'base64url').toString()));
    expect(h).toMatchObject({ typ: 'kb+jwt', alg: 'ES256' });
    expect(p).toEqual({ iat: NOW, aud: AUD, nonce: 'nonce-1', sd_hash: sdHashOf(parts.issuerJwt, parts.disclosures) });
    const r = await verify(presentation);
    expect(r.valid).toBe(true);
    if (!r.valid) return;
    expect(r.claims).toMatchObject({
      given_name: 'Alice',
      address: { locality: 'Paris', country: 'FR' },
      nationalities: ['DE'],
    });
    expect(r.claims.family_name).toBeUndefined();
    expect((r.claims.address as Record<string, unknown>).street_address).toBeUndefined();
    expect(r.keyBinding).toMatchObject({ aud: AUD, nonce: 'nonce-1', iat: NOW });
    expect(Object.keys(r.keyBinding!.claims).sort()).toEqual(['aud', 'iat', 'nonce', 'sd_hash']);
    expect(r.holderJwk).toEqual(f.holder.publicJwk);
  });

  it('takes the issuer JWT claims a caller already decoded only for that very issuer JWT', async () => {
    const presentation = await presentSdJwtVc(credential, { disclose: [['given_name']], keyBinding: kb() });
    const { issuerJwt } = splitSdJwt(presentation);
    const claims = decodeSdJwt(presentation).payload;
    const same = await verify(presentation, { decodedIssuerJwt: { jwt: issuerJwt, claims } });
    expect(same.valid && same.claims.given_name).toBe('Alice');
    // Claims said to be of another JWT are not used: the presentation's own are decoded.
    const other = await verify(presentation, {
      decodedIssuerJwt: { jwt: `${issuerJwt}x`, claims: { ...claims, given_name: 'Mallory', vct: 7 } },
    });
    expect(other.valid && other.claims.given_name).toBe('Alice');
  });

  it('accepts typ vc+sd-jwt on input', async () => {
    const { issuerJwt, disclosures } = splitSdJwt(credential);
    const payload = decodeSdJwt(credential).payload;
    const legacy = await signIssuerJwt(f, payload, 'vc+sd-jwt');
    expect(issuerJwt).not.toBe(legacy);
    const r = await verify(await presentWithDisclosures(legacy, disclosures, kb()));
    expect(r.valid).toBe(true);
  });

  it('property: any subset of claims presents and verifies, revealing exactly that subset', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(PID_DISCLOSABLE),
        fc.string({ minLength: 1, maxLength: 20 }),
        async (paths, nonce) => {
          const presentation = await presentSdJwtVc(credential, { disclose: paths, keyBinding: kb({ nonce }) });
          const r = await verify(presentation, { keyBinding: { aud: AUD, nonce } });
          expect(r.valid).toBe(true);
          if (!r.valid) return;
          const { iss, iat, exp, vct, cnf, ...claims } = r.claims;
          expect({ iss, iat, exp, vct, cnf }).toMatchObject({ iss: ISS, iat: NOW, vct: 'urn:eudi:pid:1' });
          expect(claims).toEqual(project(PID_CLAIMS, paths));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('property: a disclosure presented without the parent that references it is refused (disclosure_unreferenced)', async () => {
    const decoded = decodeSdJwt(credential);
    const children = decoded.disclosures.filter((d) => d.path.length === 2 && d.path[0] === 'address');
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(decoded.disclosures.filter((d) => d.path[0] !== 'address')),
        fc.constantFrom(...children),
        async (others, child) => {
          const r = await verify(
            await presentWithDisclosures(
              decoded.parts.issuerJwt,
              [...others.map((d) => d.encoded), child.encoded],
              kb(),
            ),
          );
          expect(r).toMatchObject({ valid: false, check: 'disclosure_unreferenced' });
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('SD-JWT VC verification names the failing check', () => {
  const present = (paths: ClaimPath[] | 'all' = 'all', k = kb()) =>
    presentSdJwtVc(credential, { disclose: paths, keyBinding: k });

  it('tampered disclosure -> disclosure_unreferenced', async () => {
    const parts = (await present()).split('~');
    const original = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
    parts[1] = b64url(JSON.stringify([original[0], original[1], 'Mallory']));
    expect(await verify(parts.join('~'))).toMatchObject({ valid: false, check: 'disclosure_unreferenced' });
  });

  it('a disclosure swapped after the KB-JWT was made -> sd_hash', async () => {
    const full = splitSdJwt(await present('all'));
    const presentation = await presentWithDisclosures(full.issuerJwt, full.disclosures.slice(0, 1), kb());
    const forged = `${[full.issuerJwt, ...full.disclosures.slice(0, 2)].join('~')}~${splitSdJwt(presentation).kbJwt}`;
    expect(await verify(forged)).toMatchObject({ valid: false, check: 'sd_hash' });
  });

  it('KB-JWT older than the freshness window -> kb_freshness; from the future -> kb_freshness', async () => {
    expect(await verify(await present([['given_name']], kb({ now: NOW - 301 - 60 })))).toMatchObject({
      valid: false,
      check: 'kb_freshness',
    });
    expect(await verify(await present([['given_name']], kb({ now: NOW + 3600 })))).toMatchObject({
      valid: false,
      check: 'kb_freshness',
    });
    expect((await verify(await present([['given_name']], kb({ now: NOW - 200 })))).valid).toBe(true);
    expect(
      await verify(await present([['given_name']], kb({ now: NOW - 200 })), {
        keyBinding: { aud: AUD, nonce: 'nonce-1', maxAge: 60 },
      }),
    ).toMatchObject({ valid: false, check: 'kb_freshness' });
  });

  it('wrong nonce -> nonce; wrong audience -> aud', async () => {
    expect(await verify(await present([['given_name']], kb({ nonce: 'other' })))).toMatchObject({
      valid: false,
      check: 'nonce',
    });
    expect(await verify(await present([['given_name']], kb({ aud: 'https://evil.example' })))).toMatchObject({
      valid: false,
      check: 'aud',
    });
  });

  it('KB-JWT signed by a key other than cnf.jwk -> kb_signature; wrong typ -> kb_jwt; missing -> kb_jwt', async () => {
    const other = await generateHolderKey('ES256');
    expect(
      await verify(
        await present([['given_name']], { ...kb(), holder: { alg: 'ES256', privateKey: other.privateKey } }),
      ),
    ).toMatchObject({ valid: false, check: 'kb_signature' });
    expect(await verify(await presentSdJwtVc(credential, { disclose: [['given_name']] }))).toMatchObject({
      valid: false,
      check: 'kb_jwt',
    });
    const { issuerJwt, disclosures } = splitSdJwt(await present([['given_name']]));
    const { SignJWT } = await import('jose');
    const wrongTyp = await new SignJWT({
      iat: NOW,
      aud: AUD,
      nonce: 'nonce-1',
      sd_hash: sdHashOf(issuerJwt, disclosures),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .sign(f.holder.privateKey);
    expect(await verify(`${[issuerJwt, ...disclosures].join('~')}~${wrongTyp}`)).toMatchObject({
      valid: false,
      check: 'kb_jwt',
    });
  });

  it('a credential without cnf cannot satisfy a key binding requirement -> holder_binding', async () => {
    const unbound = (await issuePid(f, { holderJwk: undefined })).sdJwt;
    expect(await verify(await presentSdJwtVc(unbound, { disclose: 'all', keyBinding: kb() }))).toMatchObject({
      valid: false,
      check: 'holder_binding',
    });
    expect((await verify(unbound, { keyBinding: undefined })).valid).toBe(true);
  });

  it('an issuer JWT without kid verifies against a JWKS of several fitting keys, by whichever signed it', async () => {
    const { kid: _kid, ...unnamed } = decodeSdJwt(credential).header as Record<string, unknown>;
    void _kid;
    const payload = decodeSdJwt(credential).payload;
    const { SignJWT } = await import('jose');
    const jwt = await new SignJWT(payload).setProtectedHeader({ ...unnamed, alg: 'ES256' }).sign(f.issuer.privateKey);
    const disclosures = credential.split('~').slice(1).join('~');
    const withoutKid = `${jwt}~${disclosures}`;
    const other = await generateHolderKey('ES256');
    const keys = [
      { ...other.publicJwk, alg: 'ES256' },
      { ...f.issuer.publicJwk, alg: 'ES256' },
    ];
    expect((await verify(withoutKid, { issuerJwks: { keys }, keyBinding: undefined })).valid).toBe(true);
    expect(
      await verify(withoutKid, {
        issuerJwks: { keys: [keys[0], { ...keys[0], x: keys[0].x }] },
        keyBinding: undefined,
      }),
    ).toMatchObject({ valid: false, check: 'issuer_signature' });
  });

  it('issuer signature by another key -> issuer_signature; typ JWT -> typ; expired -> validity', async () => {
    const other = await generateHolderKey('ES256');
    expect(
      await verify(await present(), { issuerJwks: { keys: [{ ...other.publicJwk, kid: f.issuer.kid }] } }),
    ).toMatchObject({ valid: false, check: 'issuer_signature' });
    const jwtTyp = await signIssuerJwt(f, decodeSdJwt(credential).payload, 'JWT');
    expect(await verify(`${jwtTyp}~`, { keyBinding: undefined })).toMatchObject({ valid: false, check: 'typ' });
    expect(await verify(await present(), { now: NOW + 86_400 + 61, keyBinding: undefined })).toMatchObject({
      valid: false,
      check: 'validity',
    });
    expect(await verify(await present(), { expectedVcts: ['urn:other'], keyBinding: undefined })).toMatchObject({
      valid: false,
      check: 'vct',
    });
  });

  it('the issuer signature is judged before the key binding: a payload whose cnf.jwk was swapped for the presenter key -> issuer_signature', async () => {
    const other = await generateHolderKey('ES256');
    const { issuerJwt, disclosures } = splitSdJwt(await presentSdJwtVc(credential, { disclose: [['given_name']] }));
    const [header, payload, signature] = issuerJwt.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${b64url(new TextEncoder().encode(JSON.stringify({ ...claims, cnf: { jwk: other.publicJwk } })))}.${signature}`;
    const { SignJWT } = await import('jose');
    const kbJwt = await new SignJWT({ iat: NOW, aud: AUD, nonce: 'nonce-1', sd_hash: sdHashOf(forged, disclosures) })
      .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
      .sign(other.privateKey);
    expect(await verify(`${[forged, ...disclosures].join('~')}~${kbJwt}`)).toMatchObject({
      valid: false,
      check: 'issuer_signature',
    });
    // Issuer and holder signatures both wrong: the issuer's is the one named.
    const wrongHolder = await present([['given_name']], {
      ...kb(),
      holder: { alg: 'ES256', privateKey: other.privateKey },
    });
    expect(
      await verify(wrongHolder, { issuerJwks: { keys: [{ ...other.publicJwk, kid: f.issuer.kid }] } }),
    ).toMatchObject({ valid: false, check: 'issuer_signature' });
  });

  it('the same disclosure twice -> duplicate_disclosure; a digest listed twice -> duplicate_digest', async () => {
    const { issuerJwt, disclosures } = splitSdJwt(credential);
    expect(await verify(await presentWithDisclosures(issuerJwt, [disclosures[0], disclosures[0]], kb()))).toMatchObject(
      { valid: false, check: 'duplicate_disclosure' },
    );
    const d = createDisclosure('given_name', 'Alice');
    const dup = await signIssuerJwt(f, {
      iss: ISS,
      iat: NOW,
      vct: 'urn:x',
      _sd_alg: 'sha-256',
      _sd: [d.digest, d.digest],
      cnf: { jwk: f.holder.publicJwk },
    });
    expect(await verify(await presentWithDisclosures(dup, [d.encoded], kb()))).toMatchObject({
      valid: false,
      check: 'duplicate_digest',
    });
  });

  it('a disclosed name that already exists -> claim_collision; an array disclosure under _sd -> disclosure_format; unknown _sd_alg -> sd_alg', async () => {
    const d = createDisclosure('given_name', 'Mallory');
    const clash = await signIssuerJwt(f, {
      iss: ISS,
      iat: NOW,
      vct: 'urn:x',
      _sd_alg: 'sha-256',
      given_name: 'Alice',
      _sd: [d.digest],
    });
    expect(await verify(await presentWithDisclosures(clash, [d.encoded]), { keyBinding: undefined })).toMatchObject({
      valid: false,
      check: 'claim_collision',
    });
    const element = createDisclosure(undefined, 'FR');
    const misplaced = await signIssuerJwt(f, {
      iss: ISS,
      iat: NOW,
      vct: 'urn:x',
      _sd_alg: 'sha-256',
      _sd: [element.digest],
    });
    expect(
      await verify(await presentWithDisclosures(misplaced, [element.encoded]), { keyBinding: undefined }),
    ).toMatchObject({ valid: false, check: 'disclosure_format' });
    const sha512 = await signIssuerJwt(f, { iss: ISS, iat: NOW, vct: 'urn:x', _sd_alg: 'sha-512', _sd: [] });
    expect(await verify(`${sha512}~`, { keyBinding: undefined })).toMatchObject({ valid: false, check: 'sd_alg' });
  });

  it('garbage is refused as format, never thrown', async () => {
    for (const text of ['', 'not-a-jwt', 'a.b.c', '~~~'])
      expect(await verify(text)).toMatchObject({ valid: false, check: 'format' });
  });
});
