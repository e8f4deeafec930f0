import 'reflect-metadata';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import fc from 'fast-check';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { Document, MDoc } from '@auth0/mdl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const decode = async (body: unknown, path = '/api/lookingglass/decode') => {
  const res = await fetch(server.url + path, json(body));
  return { status: res.status, body: (await res.json()) as any };
};

describe('JWT looking glass', () => {
  it("verifies our own issuers' tokens without being given keys and explains every claim", async () => {
    const reg = (await (await fetch(`${server.url}/agentauth/identity`, json({ type: 'anonymous' }))).json()) as any;
    const { body } = await decode({ token: reg.identity_assertion });
    expect(body.format).toBe('jwt');
    expect(body.signature).toMatchObject({ verified: true, key_source: 'portico agentauth keys' });
    const exp = body.claims.find((c: any) => c.name === 'exp');
    expect(exp).toMatchObject({ reference: 'RFC 7519 §4.1.4', relative: 'in 10 minutes' });
    expect(exp.date).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(body.claims.find((c: any) => c.name === 'jti').meaning).toMatch(/replay/);
    expect(body.warnings).toEqual([]);

    const cc = await fetch(
      `${server.url}/oauth2/token`,
      form(
        { grant_type: 'client_credentials' },
        { authorization: `Basic ${Buffer.from('machine-client:machine-client-secret').toString('base64')}` },
      ),
    );
    const at = (await cc.json()) as any;
    expect((await decode({ token: at.access_token })).body.signature.key_source).toBe('portico oauth2 keys');
  });

  it('verifies a foreign token with a supplied JWKS, and flags a tampered one', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const now = Math.floor(server.clock.now() / 1000);
    const token = await new SignJWT({ scope: 'read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('https://foreign.example')
      .setAudience('api')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(privateKey);
    expect((await decode({ token, jwks: { keys: [jwk] } })).body.signature).toMatchObject({
      verified: true,
      key_source: 'supplied jwks',
    });
    const [h, , s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ scope: 'admin', iss: 'https://foreign.example', aud: 'api', exp: now + 60 })).toString('base64url')}.${s}`;
    const bad = (await decode({ token: tampered, jwks: { keys: [jwk] } })).body;
    expect(bad.signature.verified).toBe(false);
    expect(bad.warnings).toContain('signature not verified');
    expect((await decode({ token })).body.signature.verified).toBe(false);
  });

  it('warns about alg none, HS* with public key material, expiry, nbf in the future and a missing aud', async () => {
    const now = Math.floor(server.clock.now() / 1000);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'x', exp: now - 10, nbf: now + 100 })).toString('base64url')}.`;
    const w = (await decode({ token: none })).body.warnings as string[];
    expect(w.some((x) => x.startsWith('alg "none"'))).toBe(true);
    expect(w).toContain('expired');
    expect(w.some((x) => x.startsWith('not yet valid'))).toBe(true);
    expect(w.some((x) => x.startsWith('no aud'))).toBe(true);
    const hs = await new SignJWT({ aud: 'a', exp: now + 10 })
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-key' })
      .sign(new TextEncoder().encode('secret'));
    const rsa = await exportJWK((await generateKeyPair('RS256')).publicKey);
    const hw = (await decode({ token: hs, jwks: { keys: [{ ...rsa, kid: 'rsa-key' }] } })).body.warnings as string[];
    expect(hw.some((x) => x.includes('algorithm confusion'))).toBe(true);
  });

  it('answers malformed input with 400 invalid_token, never a 5xx (fuzzed)', async () => {
    for (const token of ['abc', 'a.b', 'a.b.c.d.e', '!!.??.**', `${Buffer.from('[]').toString('base64url')}.e30.x`]) {
      const r = await decode({ token });
      expect([r.status, r.body.error]).toEqual([400, 'invalid_token']);
    }
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map((p) => p.join('.').replace(/=/g, '')),
        ),
        async (token) => {
          const r = await decode({ token });
          expect(r.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 2 }), async (credential) => {
        const r = await decode({ credential }, '/api/lookingglass/decode/credential');
        expect(r.status).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.body.error).toBe('string');
      }),
      { numRuns: 150 },
    );
  });
});

describe('credential looking glass', () => {
  it('decodes an SD-JWT VC made by @sd-jwt/sd-jwt-vc: disclosures, recomputed digests, key binding', async () => {
    const issuer = await ES256.generateKeyPair();
    const holder = await ES256.generateKeyPair();
    const sdjwt = new SDJwtVcInstance({
      signer: await ES256.getSigner(issuer.privateKey),
      signAlg: 'ES256',
      verifier: await ES256.getVerifier(issuer.publicKey),
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
      kbSigner: await ES256.getSigner(holder.privateKey),
      kbSignAlg: 'ES256',
      kbVerifier: await ES256.getVerifier(holder.publicKey),
    });
    const now = Math.floor(server.clock.now() / 1000);
    const credential = await sdjwt.issue(
      {
        iss: 'https://issuer.example',
        iat: now,
        exp: now + 3600,
        vct: 'https://example.com/identity',
        cnf: { jwk: holder.publicKey },
        given_name: 'Alice',
        family_name: 'Anderson',
        address: { locality: 'Paris', country: 'FR' },
        nationalities: ['FR', 'DE'],
      } as any,
      {
        _sd: ['given_name', 'family_name', 'address'],
        address: { _sd: ['locality'] },
        nationalities: { _sd: [0, 1] },
      } as any,
    );
    const full = (
      await decode(
        { credential, jwks: { keys: [{ ...(issuer.publicKey as JWK), alg: 'ES256' }] } },
        '/api/lookingglass/decode/credential',
      )
    ).body;
    expect(full.format).toBe('dc+sd-jwt');
    expect(full.issuer_signature.verified).toBe(true);
    expect(full.claims).toMatchObject({
      given_name: 'Alice',
      family_name: 'Anderson',
      address: { locality: 'Paris', country: 'FR' },
      nationalities: ['FR', 'DE'],
    });
    expect(full.disclosures.every((d: any) => d.referenced)).toBe(true);
    expect(full.warnings.filter((w: string) => w.includes('not referenced'))).toEqual([]);

    const presentation = await sdjwt.present(
      credential,
      { given_name: true } as any,
      { kb: { payload: { aud: 'https://verifier.example', nonce: 'n-123', iat: now } } } as any,
    );
    const shown = (await decode({ credential: presentation }, '/api/lookingglass/decode/credential')).body;
    expect(shown.claims.given_name).toBe('Alice');
    expect(shown.claims.family_name).toBeUndefined();
    expect(shown.holder_binding).toMatchObject({
      key_binding_jwt: true,
      verified: true,
      aud: 'https://verifier.example',
      nonce: 'n-123',
    });

    // A tampered disclosure no longer matches any digest.
    const parts = presentation.split('~');
    parts[1] = Buffer.from(JSON.stringify(['salt', 'given_name', 'Mallory'])).toString('base64url');
    const tampered = (await decode({ credential: parts.join('~') }, '/api/lookingglass/decode/credential')).body;
    expect(tampered.claims.given_name).toBeUndefined();
    expect(tampered.warnings.some((w: string) => w.includes('not referenced'))).toBe(true);
    expect(tampered.holder_binding.verified).toBe(false);
  });

  it('decodes an mdoc made by @auth0/mdl: namespaces, digests checked against the MSO, IssuerAuth, validity', async () => {
    x509.cryptoProvider.set(webcrypto as Crypto);
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: 'CN=Test Document Signer, C=FR',
      notBefore: new Date(Date.UTC(2025, 0, 1)),
      notAfter: new Date(Date.UTC(2030, 0, 1)),
      signingAlgorithm: alg,
      keys,
    });
    const device = await generateKeyPair('ES256', { extractable: true });
    const doc = await new Document('org.iso.18013.5.1.mDL')
      .addIssuerNameSpace('org.iso.18013.5.1', {
        family_name: 'Anderson',
        given_name: 'Alice',
        birth_date: '1990-04-12',
      })
      .useDigestAlgorithm('SHA-256')
      .addValidityInfo({
        signed: new Date(server.clock.now()),
        validFrom: new Date(server.clock.now()),
        validUntil: new Date(server.clock.now() + 86_400_000),
      })
      .addDeviceKeyInfo({ deviceKey: await exportJWK(device.publicKey) })
      .sign({
        issuerPrivateKey: (await webcrypto.subtle.exportKey('jwk', keys.privateKey)) as JWK,
        issuerCertificate: cert.toString('pem'),
        alg: 'ES256',
      });
    const encoded = Buffer.from(new MDoc([doc]).encode()).toString('base64url');
    const body = (await decode({ credential: encoded }, '/api/lookingglass/decode/credential')).body;
    expect(body.format).toBe('mso_mdoc');
    expect(body.doctype).toBe('org.iso.18013.5.1.mDL');
    expect(body.claims['org.iso.18013.5.1']).toMatchObject({ family_name: 'Anderson', given_name: 'Alice' });
    expect(body.elements.every((e: any) => e.digest_matches)).toBe(true);
    expect(body.issuer_signature.verified).toBe(true);
    expect(body.issuer_signature.certificate.subject).toContain('Test Document Signer');
    expect(body.validity.state).toBe('valid');
    expect(body.holder_binding.device_key).toBeDefined();
  });

  it('decodes a W3C JSON credential and a JWT VC, and refuses what is not a credential', async () => {
    const vc = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'DemoCredential'],
      issuer: 'did:example:issuer',
      validFrom: '2025-01-01T00:00:00Z',
      credentialSubject: { id: 'did:example:alice', degree: 'BSc' },
      proof: {
        type: 'DataIntegrityProof',
        cryptosuite: 'ecdsa-rdfc-2019',
        verificationMethod: 'did:example:issuer#key-1',
        proofValue: 'z58...',
      },
    };
    const ldp = (await decode({ credential: vc }, '/api/lookingglass/decode/credential')).body;
    expect(ldp).toMatchObject({
      format: 'ldp_vc',
      claims: { degree: 'BSc' },
      issuer_signature: { cryptosuite: 'ecdsa-rdfc-2019' },
    });
    const { privateKey } = await generateKeyPair('ES256');
    const jwtVc = await new SignJWT({ vc: { type: ['VerifiableCredential'], credentialSubject: { degree: 'MSc' } } })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('did:example:issuer')
      .setSubject('did:example:alice')
      .sign(privateKey);
    const decoded = (await decode({ credential: jwtVc }, '/api/lookingglass/decode/credential')).body;
    expect(decoded).toMatchObject({ format: 'jwt_vc_json', claims: { degree: 'MSc' } });
    for (const credential of ['hello world', '{"a":1}', { type: 'Nothing' }, '']) {
      const r = await decode({ credential }, '/api/lookingglass/decode/credential');
      expect([r.status, r.body.error]).toEqual([
        400,
        r.body.error === 'invalid_request' ? 'invalid_request' : 'invalid_credential',
      ]);
    }
  });
});
