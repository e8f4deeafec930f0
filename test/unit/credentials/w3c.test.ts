import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  didKeyFromJwk,
  generateHolderKey,
  multibaseDecode,
  multikeyToJwk,
  type KeyPair,
} from '../../../services/credentials/keys/index.ts';
import {
  UnknownContextError,
  createDocumentLoader,
  createJwtVp,
  createLdpVp,
  issueJwtVc,
  issueLdpVc,
  verifyDataIntegrityProof,
  verifyJwtVc,
  verifyJwtVp,
  verifyLdpVc,
  verifyLdpVp,
} from '../../../services/credentials/w3c/index.ts';
import { AUD, NOW } from './helpers.ts';

/** The examples context the W3C test vectors use, supplied as data (never fetched). */
const EXAMPLES = {
  'https://www.w3.org/ns/credentials/examples/v2': {
    '@context': { '@vocab': 'https://www.w3.org/ns/credentials/examples#' },
  },
};

/** W3C vc-di-eddsa test vector (TestVectors/eddsa-rdfc-2022, keyPair.json). */
const ALUMNI = {
  '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
  id: 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33',
  type: ['VerifiableCredential', 'AlumniCredential'],
  name: 'Alumni Credential',
  description: 'A minimum viable example of an Alumni Credential.',
  issuer: 'https://vc.example/issuers/5678',
  validFrom: '2023-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:abcdefgh', alumniOf: 'The School of Examples' },
};
const VECTOR_PUBLIC = 'z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2';
const VECTOR_SECRET = 'z3u2en7t5LR2WtQH5PfFqMqwVHBeXouLzo6haApm8XHqvjxq';
const VECTOR_PROOF_VALUE = 'z21EVs3eXERqTn4acNHT9viboqgzUaQ3kTmhPT3eA8qrVPE7CrQq78WkzctnMX5W4CrzcKnHw8V6dvy5pgWYCU5e9';

let issuerEd: KeyPair;
let issuerP256: KeyPair;
let holder: KeyPair;
const vmOf = (k: KeyPair) => `${didKeyFromJwk(k.publicJwk)}#${didKeyFromJwk(k.publicJwk).slice(8)}`;
beforeAll(async () => {
  issuerEd = await generateHolderKey('EdDSA');
  issuerP256 = await generateHolderKey('ES256');
  holder = await generateHolderKey('ES256');
});

const degree = (issuer: string, subject: string) => ({
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  id: 'urn:uuid:0b6f4a1c-8a4e-4e1a-9d1c-1f2e3d4c5b6a',
  type: ['VerifiableCredential', 'UniversityDegreeCredential'],
  issuer,
  validFrom: '2025-06-01T00:00:00Z',
  validUntil: '2030-06-01T00:00:00Z',
  credentialSubject: { id: subject, degree: { type: 'BachelorDegree', name: 'Bachelor of Science' } },
});

describe('document loader', () => {
  it('serves the bundled VC 1.1, VC 2.0 and Data Integrity contexts and refuses anything else without fetching', async () => {
    const load = createDocumentLoader();
    for (const url of [
      'https://www.w3.org/2018/credentials/v1',
      'https://www.w3.org/ns/credentials/v2',
      'https://w3id.org/security/data-integrity/v2',
    ])
      expect((await load(url)).document).toHaveProperty('@context');
    await expect(load('https://www.w3.org/ns/credentials/examples/v2')).rejects.toBeInstanceOf(UnknownContextError);
    await expect(load('http://127.0.0.1:1/context.jsonld')).rejects.toThrow(/never fetched/);
  });
});

describe('ldp_vc with Data Integrity', () => {
  it('eddsa-rdfc-2022 reproduces the W3C vc-di-eddsa test vector proofValue exactly, and verifies it', async () => {
    const seed = multibaseDecode(VECTOR_SECRET).slice(2); // multicodec ed25519-priv 0x1300
    const publicJwk = multikeyToJwk(VECTOR_PUBLIC);
    const privateKey = createPrivateKey({
      key: { ...publicJwk, d: Buffer.from(seed).toString('base64url') } as import('node:crypto').JsonWebKey,
      format: 'jwk',
    });
    const vm = `https://vc.example/issuers/5678#${VECTOR_PUBLIC}`;
    const signed = await issueLdpVc(
      ALUMNI,
      { cryptosuite: 'eddsa-rdfc-2022', privateKey, verificationMethod: vm },
      Date.parse('2023-02-24T23:36:38Z') / 1000,
      EXAMPLES,
    );
    expect(signed.proof).toEqual({
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-rdfc-2022',
      created: '2023-02-24T23:36:38Z',
      verificationMethod: vm,
      proofPurpose: 'assertionMethod',
      proofValue: VECTOR_PROOF_VALUE,
    });
    const r = await verifyLdpVc(signed, {
      now: NOW,
      extraContexts: EXAMPLES,
      resolveVerificationMethod: (url) => multikeyToJwk(url.split('#')[1]),
    });
    expect(r.valid).toBe(true);
  });

  it.each(['ecdsa-rdfc-2019', 'eddsa-rdfc-2022'] as const)(
    '%s: issues with a did:key issuer and verifies',
    async (cryptosuite) => {
      const key = cryptosuite === 'ecdsa-rdfc-2019' ? issuerP256 : issuerEd;
      const did = didKeyFromJwk(key.publicJwk);
      const vc = await issueLdpVc(
        degree(did, 'did:example:alice'),
        { cryptosuite, privateKey: key.privateKey, verificationMethod: vmOf(key) },
        NOW,
      );
      expect(vc.proof).toMatchObject({ cryptosuite, proofPurpose: 'assertionMethod', created: '2026-01-01T00:00:00Z' });
      expect(await verifyLdpVc(vc, { now: NOW })).toMatchObject({ valid: true });
    },
  );

  it('adds the Data Integrity context to a VC 1.1 credential', async () => {
    const did = didKeyFromJwk(issuerEd.publicJwk);
    const v1 = {
      '@context': ['https://www.w3.org/2018/credentials/v1'],
      type: ['VerifiableCredential'],
      issuer: did,
      issuanceDate: '2025-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:alice' },
    };
    const vc = await issueLdpVc(
      v1,
      { cryptosuite: 'eddsa-rdfc-2022', privateKey: issuerEd.privateKey, verificationMethod: vmOf(issuerEd) },
      NOW,
    );
    expect(vc['@context']).toEqual([
      'https://www.w3.org/2018/credentials/v1',
      'https://w3id.org/security/data-integrity/v2',
    ]);
    expect(await verifyLdpVc(vc, { now: NOW })).toMatchObject({ valid: true });
  });

  it('wrong proofs are named: changed claim -> proof_signature; wrong key type -> verification_method; other issuer -> issuer; expired -> validity', async () => {
    const did = didKeyFromJwk(issuerP256.publicJwk);
    const vc = await issueLdpVc(
      degree(did, 'did:example:alice'),
      { cryptosuite: 'ecdsa-rdfc-2019', privateKey: issuerP256.privateKey, verificationMethod: vmOf(issuerP256) },
      NOW,
    );
    const changed = {
      ...vc,
      credentialSubject: { id: 'did:example:alice', degree: { type: 'BachelorDegree', name: 'Doctor of Everything' } },
    };
    expect(await verifyLdpVc(changed, { now: NOW })).toMatchObject({ valid: false, check: 'proof_signature' });
    const otherProof = {
      ...vc,
      proof: {
        ...(vc.proof as object),
        proofValue: (
          await issueLdpVc(
            degree(did, 'did:example:bob'),
            { cryptosuite: 'ecdsa-rdfc-2019', privateKey: issuerP256.privateKey, verificationMethod: vmOf(issuerP256) },
            NOW,
          )
        ).proof,
      },
    };
    expect((await verifyLdpVc(otherProof, { now: NOW })).valid).toBe(false);
    const edAsEcdsa = { ...vc, proof: { ...(vc.proof as object), verificationMethod: vmOf(issuerEd) } };
    expect(await verifyLdpVc(edAsEcdsa, { now: NOW })).toMatchObject({ valid: false, check: 'verification_method' });
    const otherIssuer = await issueLdpVc(
      degree('did:example:university', 'did:example:alice'),
      { cryptosuite: 'ecdsa-rdfc-2019', privateKey: issuerP256.privateKey, verificationMethod: vmOf(issuerP256) },
      NOW,
    );
    expect(await verifyLdpVc(otherIssuer, { now: NOW })).toMatchObject({ valid: false, check: 'issuer' });
    expect(await verifyLdpVc(vc, { now: Date.parse('2031-01-01T00:00:00Z') / 1000 })).toMatchObject({
      valid: false,
      check: 'validity',
    });
    expect(
      await verifyDataIntegrityProof(
        { ...vc, proof: { ...(vc.proof as object), cryptosuite: 'bbs-2023' } },
        { now: NOW, expectedProofPurpose: 'assertionMethod' },
      ),
    ).toMatchObject({ valid: false, check: 'cryptosuite' });
    expect(
      await verifyDataIntegrityProof(
        { ...vc, proof: { ...(vc.proof as object), verificationMethod: 'did:key:z6MkBAD' } },
        { now: NOW, expectedProofPurpose: 'assertionMethod' },
      ),
    ).toMatchObject({ valid: false, check: 'verification_method' });
  });

  it('an unknown context is a canonicalization failure, not a fetch', async () => {
    const did = didKeyFromJwk(issuerEd.publicJwk);
    const withRemote = {
      ...degree(did, 'did:example:alice'),
      '@context': ['https://www.w3.org/ns/credentials/v2', 'https://example.org/remote-context.jsonld'],
    };
    await expect(
      issueLdpVc(
        withRemote,
        { cryptosuite: 'eddsa-rdfc-2022', privateKey: issuerEd.privateKey, verificationMethod: vmOf(issuerEd) },
        NOW,
      ),
    ).rejects.toThrow(/not bundled/);
    const vc = await issueLdpVc(
      degree(did, 'did:example:alice'),
      { cryptosuite: 'eddsa-rdfc-2022', privateKey: issuerEd.privateKey, verificationMethod: vmOf(issuerEd) },
      NOW,
    );
    expect(await verifyLdpVc({ ...vc, '@context': withRemote['@context'] }, { now: NOW })).toMatchObject({
      valid: false,
      check: 'canonicalization',
    });
  });

  it('an ldp VP binds challenge (nonce) and domain (client_id); mismatches are named', async () => {
    const did = didKeyFromJwk(issuerEd.publicJwk);
    const holderDid = didKeyFromJwk(holder.publicJwk);
    const vc = await issueLdpVc(
      degree(did, holderDid),
      { cryptosuite: 'eddsa-rdfc-2022', privateKey: issuerEd.privateKey, verificationMethod: vmOf(issuerEd) },
      NOW,
    );
    const vp = await createLdpVp({
      credentials: [vc],
      holder: holderDid,
      signer: { cryptosuite: 'ecdsa-rdfc-2019', privateKey: holder.privateKey, verificationMethod: vmOf(holder) },
      challenge: 'n-1',
      domain: 'x509_san_dns:verifier.example',
      now: NOW,
    });
    expect(
      await verifyLdpVp(vp, { now: NOW, challenge: 'n-1', domain: 'x509_san_dns:verifier.example' }),
    ).toMatchObject({ valid: true });
    expect(
      await verifyLdpVp(vp, { now: NOW, challenge: 'n-2', domain: 'x509_san_dns:verifier.example' }),
    ).toMatchObject({ valid: false, check: 'challenge' });
    expect(await verifyLdpVp(vp, { now: NOW, challenge: 'n-1', domain: 'x509_san_dns:evil.example' })).toMatchObject({
      valid: false,
      check: 'domain',
    });
    expect(await verifyLdpVc(vp, { now: NOW })).toMatchObject({ valid: false });
    const tamperedInner = { ...vp, verifiableCredential: [{ ...vc, validUntil: '2099-01-01T00:00:00Z' }] };
    expect(
      await verifyLdpVp(tamperedInner, { now: NOW, challenge: 'n-1', domain: 'x509_san_dns:verifier.example' }),
    ).toMatchObject({ valid: false, check: 'proof_signature' });
  });
});

describe('jwt_vc_json and jwt_vc_json-ld', () => {
  it('issues a VC-JWT (vc claim, iss, sub, nbf, exp, jti) that verifies with a did:key issuer', async () => {
    const did = didKeyFromJwk(issuerP256.publicJwk);
    const jwt = await issueJwtVc({
      format: 'jwt_vc_json',
      credential: degree(did, 'did:example:alice'),
      issuer: { alg: 'ES256', privateKey: issuerP256.privateKey, kid: vmOf(issuerP256) },
      now: NOW,
    });
    const r = await verifyJwtVc(jwt, { now: NOW });
    expect(r.valid).toBe(true);
    if (!r.valid) return;
    expect(r.payload).toMatchObject({
      iss: did,
      sub: 'did:example:alice',
      nbf: Date.parse('2025-06-01T00:00:00Z') / 1000,
      exp: Date.parse('2030-06-01T00:00:00Z') / 1000,
      jti: 'urn:uuid:0b6f4a1c-8a4e-4e1a-9d1c-1f2e3d4c5b6a',
    });
    expect(r.credential.credentialSubject).toMatchObject({ degree: { name: 'Bachelor of Science' } });
  });

  it('jwt_vc_json-ld must be valid JSON-LD against bundled contexts; an issuer JWKS works for non-DID issuers', async () => {
    const ld = { ...degree('https://issuer.example', 'did:example:alice') };
    const jwt = await issueJwtVc({
      format: 'jwt_vc_json-ld',
      credential: ld,
      issuer: { alg: 'EdDSA', privateKey: issuerEd.privateKey, kid: issuerEd.kid },
      now: NOW,
    });
    const jwks = { keys: [{ ...issuerEd.publicJwk, kid: issuerEd.kid }] };
    expect(await verifyJwtVc(jwt, { now: NOW, issuerJwks: jwks, format: 'jwt_vc_json-ld' })).toMatchObject({
      valid: true,
    });
    await expect(
      issueJwtVc({
        format: 'jwt_vc_json-ld',
        credential: { ...ld, '@context': ['https://example.org/unknown'] },
        issuer: { alg: 'EdDSA', privateKey: issuerEd.privateKey },
        now: NOW,
      }),
    ).rejects.toThrow(/not bundled/);
    const noContext = await new SignJWT({
      iss: 'https://issuer.example',
      vc: { type: ['VerifiableCredential'], credentialSubject: { id: 'x' } },
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: issuerEd.kid })
      .sign(issuerEd.privateKey);
    expect(await verifyJwtVc(noContext, { now: NOW, issuerJwks: jwks, format: 'jwt_vc_json-ld' })).toMatchObject({
      valid: false,
      check: 'jsonld',
    });
    expect(await verifyJwtVc(noContext, { now: NOW, issuerJwks: jwks, format: 'jwt_vc_json' })).toMatchObject({
      valid: true,
    });
  });

  it('a VP JWT carries aud, nonce and the credentials; each failure is named', async () => {
    const did = didKeyFromJwk(issuerP256.publicJwk);
    const holderDid = didKeyFromJwk(holder.publicJwk);
    const vc = await issueJwtVc({
      format: 'jwt_vc_json',
      credential: degree(did, holderDid),
      issuer: { alg: 'ES256', privateKey: issuerP256.privateKey, kid: vmOf(issuerP256) },
      now: NOW,
    });
    const vp = (o: Partial<{ aud: string; nonce: string; now: number; credentials: string[] }> = {}) =>
      createJwtVp({
        holder: { alg: 'ES256', privateKey: holder.privateKey, kid: vmOf(holder), did: holderDid },
        credentials: [vc],
        aud: AUD,
        nonce: 'n-1',
        now: NOW,
        ...o,
      });
    const check = (jwt: string) => verifyJwtVp(jwt, { now: NOW, aud: AUD, nonce: 'n-1' });
    const ok = await check(await vp());
    expect(ok).toMatchObject({ valid: true, holder: holderDid });
    expect(await check(await vp({ nonce: 'n-2' }))).toMatchObject({ valid: false, check: 'nonce' });
    expect(await check(await vp({ aud: 'https://evil.example' }))).toMatchObject({ valid: false, check: 'aud' });
    expect(await check(await vp({ now: NOW - 3600 }))).toMatchObject({ valid: false, check: 'freshness' });
    const [h, p] = vc.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), exp: 4102444800 })).toString('base64url')}.${vc.split('.')[2]}`;
    expect(await check(await vp({ credentials: [tampered] }))).toMatchObject({
      valid: false,
      check: 'credential',
      reason: expect.stringContaining('signature'),
    });
    const aboutSomeoneElse = await issueJwtVc({
      format: 'jwt_vc_json',
      credential: degree(did, 'did:example:bob'),
      issuer: { alg: 'ES256', privateKey: issuerP256.privateKey, kid: vmOf(issuerP256) },
      now: NOW,
    });
    expect(await check(await vp({ credentials: [aboutSomeoneElse] }))).toMatchObject({
      valid: false,
      check: 'holder_binding',
    });
    const expired = await issueJwtVc({
      format: 'jwt_vc_json',
      credential: { ...degree(did, holderDid), validUntil: '2025-12-01T00:00:00Z' },
      issuer: { alg: 'ES256', privateKey: issuerP256.privateKey, kid: vmOf(issuerP256) },
      now: NOW,
    });
    expect(await check(await vp({ credentials: [expired] }))).toMatchObject({
      valid: false,
      check: 'credential',
      reason: expect.stringContaining('validity'),
    });
  });
});
