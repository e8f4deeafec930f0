import 'reflect-metadata';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import Database from 'better-sqlite3';
import { CLOCK_SKEW_S } from '../../../services/crypto/time-claims.ts';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CompactEncrypt,
  SignJWT,
  calculateJwkThumbprint,
  compactDecrypt,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type JWK,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyIssuerSigned } from '../../../services/credentials/mdoc/index.ts';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 15 (the core of it): the pre-authorized code flow of the OID4VCI issuer, over HTTP.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let server: TestServer;
let issuer: string;
beforeAll(async () => {
  server = await startMainServer();
  issuer = `${server.url}/oid4vci`;
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, any>;
const post = (path: string, init: RequestInit) => exchange(server.url, path, init);
const holder = async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: await exportJWK(publicKey) };
};
const proof = async (
  key: { privateKey: CryptoKey; jwk: JWK },
  nonce: string | undefined,
  overrides: { typ?: string; aud?: string; iat?: number; header?: Json } = {},
) =>
  new SignJWT({ ...(nonce !== undefined ? { nonce } : {}) })
    .setProtectedHeader({
      alg: 'ES256',
      typ: overrides.typ ?? 'openid4vci-proof+jwt',
      jwk: key.jwk,
      ...overrides.header,
    })
    .setAudience(overrides.aud ?? issuer)
    .setIssuedAt(overrides.iat ?? Math.floor(server.clock.now() / 1000))
    .sign(key.privateKey);

async function offerAndToken(body: Json = {}, txFromOffer = true) {
  const offer = await post('/oid4vci/offers', json(body));
  expect(offer.status).toBe(201);
  const token = await post(
    '/oid4vci/token',
    form({
      grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      'pre-authorized_code': offer.body.pre_authorized_code,
      ...(txFromOffer && offer.body.tx_code_value ? { tx_code: offer.body.tx_code_value } : {}),
    }),
  );
  return { offer: offer.body, token };
}
const nonce = async () => (await post('/oid4vci/nonce', { method: 'POST' })).body.c_nonce as string;
const credential = (token: string, body: Json) =>
  post('/oid4vci/credential', json(body, { authorization: `Bearer ${token}` }));

describe('OID4VCI issuer: metadata', () => {
  it('publishes issuer and authorization server metadata, JWKS, IACA and vct metadata', async () => {
    const meta = (await (await fetch(`${server.url}/.well-known/openid-credential-issuer/oid4vci`)).json()) as Json;
    expect(meta).toMatchObject({
      credential_issuer: issuer,
      credential_endpoint: `${issuer}/credential`,
      nonce_endpoint: `${issuer}/nonce`,
      batch_credential_issuance: { batch_size: 2 },
    });
    expect(Object.keys(meta.credential_configurations_supported)).toEqual([
      'MobileDrivingLicenceMsoMdoc',
      'MobileDrivingLicenceMsoMdocHAIP',
      'UniversityDegreeCredential',
      'UniversityDegreeCredentialHAIP',
      'UniversityDegreeCredentialJWT',
      'UniversityDegreeCredentialJWTLD',
      'UniversityDegreeCredentialLDP',
    ]);
    expect(
      meta.credential_configurations_supported.MobileDrivingLicenceMsoMdocHAIP.proof_types_supported.jwt
        .key_attestations_required,
    ).toEqual({ key_storage: ['iso_18045_moderate'], user_authentication: ['iso_18045_moderate'] });
    expect(meta.credential_configurations_supported.UniversityDegreeCredentialLDP).toMatchObject({
      format: 'ldp_vc',
      credential_definition: { '@context': ['https://www.w3.org/ns/credentials/v2'] },
      credential_signing_alg_values_supported: ['ecdsa-rdfc-2019'],
    });
    const signed = await fetch(`${server.url}/.well-known/openid-credential-issuer/oid4vci`, {
      headers: { accept: 'application/jwt' },
    });
    expect(signed.headers.get('content-type')).toContain('application/jwt');
    const jwt = await signed.text();
    const header = JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString());
    expect(header).toMatchObject({ alg: 'ES256', typ: 'openidvci-issuer-metadata+jwt' });
    const { X509Certificate } = await import('node:crypto');
    const ds = new X509Certificate(Buffer.from(header.x5c[0], 'base64'));
    const verified = await jwtVerify(jwt, ds.publicKey, { typ: 'openidvci-issuer-metadata+jwt' });
    expect(verified.payload.sub).toBe(issuer);
    const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server/oid4vci`)).json()) as Json;
    expect(as).toMatchObject({
      issuer,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      'pre-authorized_grant_anonymous_access_supported': true,
    });
    expect((await fetch(`${server.url}/.well-known/openid-credential-issuer`)).status).toBe(404);
    expect(await (await fetch(`${issuer}/iaca.pem`)).text()).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });
});

describe('OID4VCI issuer: the pre-authorized code flow', () => {
  it('offer by reference with tx_code -> token -> nonce -> SD-JWT VC verified by @sd-jwt/sd-jwt-vc with keys from jwks_uri', async () => {
    const created = await post(
      '/oid4vci/offers',
      json({ credential_configuration_ids: ['UniversityDegreeCredential'], tx_code: true }),
    );
    expect(created.body.offer_url).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/);
    expect(created.body.tx_code_value).toMatch(/^\d{6}$/);
    const offer = (await (await fetch(created.body.credential_offer_uri)).json()) as Json;
    const grant = offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'];
    expect(grant.tx_code).toEqual({ length: 6, input_mode: 'numeric', description: expect.any(String) });
    const token = await post(
      '/oid4vci/token',
      form({
        grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
        'pre-authorized_code': grant['pre-authorized_code'],
        tx_code: created.body.tx_code_value,
      }),
    );
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: 'vc:university_degree' });
    expect(token.body.refresh_token).toBeUndefined();
    expect(token.body.c_nonce).toBeUndefined();
    const key = await holder();
    const issued = await credential(token.body.access_token, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof(key, await nonce())] },
    });
    expect(issued.status).toBe(200);
    expect(issued.body.notification_id).toEqual(expect.any(String));
    const sdJwt = issued.body.credentials[0].credential as string;

    const jwks = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const issuerJwk = jwks.keys.find(
      (k) => k.kid === JSON.parse(Buffer.from(sdJwt.split('.')[0], 'base64url').toString()).kid,
    )!;
    const verifier = await ES256.getVerifier(issuerJwk as JsonWebKey);
    const sdjwt = new SDJwtVcInstance({ hasher: digest, verifier });
    const result = await sdjwt.verify(sdJwt);
    expect(result.payload).toMatchObject({
      iss: issuer,
      vct: `${issuer}/credential-types/university-degree`,
      given_name: 'Alice',
      degree: 'Bachelor of Science',
      cnf: { jwk: { x: key.jwk.x } },
    });
    expect(result.payload.sub).toBeUndefined();

    const notified = await post(
      '/oid4vci/notification',
      json(
        { notification_id: issued.body.notification_id, event: 'credential_accepted' },
        {
          authorization: `Bearer ${token.body.access_token}`,
          'x-fapi-interaction-id': '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
        },
      ),
    );
    expect(notified.status).toBe(204);
    expect(
      (
        await post(
          '/oid4vci/notification',
          json(
            { notification_id: issued.body.notification_id, event: 'credential_failure' },
            { authorization: `Bearer ${token.body.access_token}` },
          ),
        )
      ).body.error,
    ).toBe('invalid_notification_request');
    const status = (await (await fetch(created.body.status_uri)).json()) as Json;
    expect(status).toMatchObject({
      status: 'notified',
      terminal: true,
      grant: 'pre-authorized_code',
      token_type: 'Bearer',
      configuration_id: 'UniversityDegreeCredential',
      proof_count: 1,
      holder_jkts: [await calculateJwkThumbprint(key.jwk)],
      notification_event: 'credential_accepted',
      interaction_id: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
    });
  });

  it('batch of two mdocs bound to pairwise-distinct keys, IssuerAuth chaining to the served IACA, DPoP-bound token', async () => {
    const created = await post(
      '/oid4vci/offers',
      json({ credential_configuration_ids: ['MobileDrivingLicenceMsoMdoc'], by_value: true }),
    );
    expect(created.body.credential_offer.credential_issuer).toBe(issuer);
    const dpopKey = await holder();
    const dpop = async (htm: string, htu: string, ath?: string) =>
      new SignJWT({ htm, htu, jti: crypto.randomUUID(), ...(ath ? { ath } : {}) })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopKey.jwk })
        .setIssuedAt(Math.floor(server.clock.now() / 1000))
        .sign(dpopKey.privateKey);
    const token = await post(
      '/oid4vci/token',
      form(
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
          'pre-authorized_code': created.body.pre_authorized_code,
        },
        { dpop: await dpop('POST', `${issuer}/token`) },
      ),
    );
    expect(token.body.token_type).toBe('DPoP');
    const at = token.body.access_token as string;
    const { createHash } = await import('node:crypto');
    const ath = createHash('sha256').update(at).digest('base64url');
    const [a, b] = [await holder(), await holder()];
    const n = await nonce();
    const bearer = await credential(at, {
      credential_configuration_id: 'MobileDrivingLicenceMsoMdoc',
      proofs: { jwt: [await proof(a, n)] },
    });
    expect(bearer.status).toBe(401);
    const issued = await post(
      '/oid4vci/credential',
      json(
        {
          credential_configuration_id: 'MobileDrivingLicenceMsoMdoc',
          proofs: { jwt: [await proof(a, n), await proof(b, n)] },
        },
        { authorization: `DPoP ${at}`, dpop: await dpop('POST', `${issuer}/credential`, ath) },
      ),
    );
    expect(issued.status).toBe(200);
    expect(issued.body.credentials).toHaveLength(2);
    const iaca = await (await fetch(`${issuer}/iaca.pem`)).text();
    const now = Math.floor(server.clock.now() / 1000);
    const verified = await Promise.all(
      issued.body.credentials.map((c: { credential: string }) =>
        verifyIssuerSigned(Buffer.from(c.credential, 'base64url'), { trustedRoots: [iaca], now }),
      ),
    );
    for (const v of verified) expect(v).toMatchObject({ valid: true, docType: 'org.iso.18013.5.1.mDL' });
    expect(verified.map((v: any) => v.deviceKey.x)).toEqual([a.jwk.x, b.jwk.x]);
    expect(verified[0].claims['org.iso.18013.5.1'].issuing_country).toBe('FR');
  });
});

describe('OID4VCI issuer: encryption', () => {
  async function encryptTo(body: Json, enc = 'A256GCM') {
    const meta = (await (await fetch(`${server.url}/.well-known/openid-credential-issuer/oid4vci`)).json()) as Json;
    const { importJWK } = await import('jose');
    const key = meta.credential_request_encryption.jwks.keys[0];
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(body)))
      .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: key.kid })
      .encrypt(await importJWK(key, 'ECDH-ES'));
  }
  const sendJwe = (token: string, jwe: string, path = '/oid4vci/credential') =>
    post(path, {
      method: 'POST',
      headers: { 'content-type': 'application/jwt', authorization: `Bearer ${token}` },
      body: jwe,
    });

  it('an encrypted request with credential_response_encryption gets a JWE answer (ECDH-ES, A128GCM or A256GCM)', async () => {
    const meta = (await (await fetch(`${server.url}/.well-known/openid-credential-issuer/oid4vci`)).json()) as Json;
    expect(meta.credential_request_encryption).toMatchObject({
      enc_values_supported: ['A128GCM', 'A256GCM'],
      encryption_required: false,
      jwks: { keys: [{ kid: 'req-enc-1', kty: 'EC', crv: 'P-256' }] },
    });
    expect(meta.credential_request_encryption.jwks.keys[0].d).toBeUndefined();
    const { token } = await offerAndToken({ credential_configuration_ids: ['UniversityDegreeCredential'] });
    const wallet = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
    for (const enc of ['A128GCM', 'A256GCM']) {
      const jwe = await encryptTo(
        {
          credential_configuration_id: 'UniversityDegreeCredential',
          proofs: { jwt: [await proof(await holder(), await nonce())] },
          credential_response_encryption: { jwk: await exportJWK(wallet.publicKey), enc },
        },
        enc,
      );
      const res = await fetch(`${server.url}/oid4vci/credential`, {
        method: 'POST',
        headers: { 'content-type': 'application/jwt', authorization: `Bearer ${token.body.access_token}` },
        body: jwe,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/jwt');
      const { plaintext, protectedHeader } = await compactDecrypt(await res.text(), wallet.privateKey);
      expect(protectedHeader).toMatchObject({ alg: 'ECDH-ES', enc });
      expect(JSON.parse(new TextDecoder().decode(plaintext)).credentials).toHaveLength(1);
    }
    const offerId = JSON.parse(
      Buffer.from(String(token.body.access_token).split('.')[1], 'base64url').toString(),
    ).issuance;
    expect(await (await fetch(`${server.url}/oid4vci/offers/${offerId}/status`)).json()).toMatchObject({
      request_encrypted: true,
      response_encrypted: true,
    });
  });

  it('invalid_encryption_parameters: response encryption in plain JSON, a JWE that does not decrypt, an unsupported enc; errors stay plain JSON', async () => {
    const { token } = await offerAndToken({ credential_configuration_ids: ['UniversityDegreeCredential'] });
    const at = token.body.access_token as string;
    const wallet = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
    const plain = await credential(at, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof(await holder(), await nonce())] },
      credential_response_encryption: { jwk: await exportJWK(wallet.publicKey), enc: 'A128GCM' },
    });
    expect(plain.body.error).toBe('invalid_encryption_parameters');
    expect((await sendJwe(at, 'a.b.c.d.e')).body.error).toBe('invalid_encryption_parameters');
    const badEnc = await sendJwe(
      at,
      await encryptTo({
        credential_configuration_id: 'UniversityDegreeCredential',
        proofs: { jwt: [await proof(await holder(), await nonce())] },
        credential_response_encryption: { jwk: await exportJWK(wallet.publicKey), enc: 'A192GCM' },
      }),
    );
    expect(badEnc.body.error).toBe('invalid_encryption_parameters');
    const wrongProof = await sendJwe(
      at,
      await encryptTo({
        credential_configuration_id: 'UniversityDegreeCredential',
        proofs: { jwt: [await proof(await holder(), await nonce(), { typ: 'JWT' })] },
        credential_response_encryption: { jwk: await exportJWK(wallet.publicKey), enc: 'A128GCM' },
      }),
    );
    expect([wrongProof.status, wrongProof.body.error, wrongProof.headers.get('content-type')]).toEqual([
      400,
      'invalid_proof',
      'application/json; charset=utf-8',
    ]);
  });

  it('with OID4VCI_ENCRYPTION_REQUIRED=true a plain request, or one without response encryption, is refused', async () => {
    const strict = await startMainServer({ env: { OID4VCI_ENCRYPTION_REQUIRED: 'true' } });
    try {
      const offer = (await (
        await fetch(
          `${strict.url}/oid4vci/offers`,
          json({ credential_configuration_ids: ['UniversityDegreeCredential'] }),
        )
      ).json()) as Json;
      const token = (await (
        await fetch(
          `${strict.url}/oid4vci/token`,
          form({
            grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
            'pre-authorized_code': offer.pre_authorized_code,
          }),
        )
      ).json()) as Json;
      const res = await fetch(
        `${strict.url}/oid4vci/credential`,
        json(
          { credential_configuration_id: 'UniversityDegreeCredential', proofs: { jwt: [] } },
          { authorization: `Bearer ${token.access_token}` },
        ),
      );
      expect(((await res.json()) as Json).error).toBe('invalid_encryption_parameters');
      const meta = (await (await fetch(`${strict.url}/.well-known/openid-credential-issuer/oid4vci`)).json()) as Json;
      expect(meta.credential_response_encryption.encryption_required).toBe(true);
    } finally {
      await strict.close();
    }
  });
});

describe('OID4VCI issuer: deferred issuance', () => {
  it('202 with transaction_id and interval 3, the same id until ready, then the credentials once; other tokens and reuse refused', async () => {
    const { offer, token } = await offerAndToken({
      credential_configuration_ids: ['UniversityDegreeCredential'],
      deferred: true,
    });
    const at = token.body.access_token as string;
    const key = await holder();
    const accepted = await credential(at, {
      credential_configuration_id: 'UniversityDegreeCredential',
      proofs: { jwt: [await proof(key, await nonce())] },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ transaction_id: expect.any(String), interval: 3 });
    expect(accepted.headers.get('retry-after')).toBeNull();
    const collect = (token: string, id: string) =>
      post('/oid4vci/deferred_credential', json({ transaction_id: id }, { authorization: `Bearer ${token}` }));
    const early = await collect(at, accepted.body.transaction_id);
    expect([early.status, early.body.transaction_id, early.body.interval]).toEqual([
      202,
      accepted.body.transaction_id,
      3,
    ]);
    expect(((await (await fetch(offer.status_uri)).json()) as Json).status).toBe('deferred');
    const { token: other } = await offerAndToken();
    expect((await collect(other.body.access_token, accepted.body.transaction_id)).body.error).toBe(
      'invalid_transaction_id',
    );
    server.clock.advance(3_000);
    const ready = await collect(at, accepted.body.transaction_id);
    expect(ready.status).toBe(200);
    expect(ready.body.credentials).toHaveLength(1);
    expect(ready.body.notification_id).toEqual(expect.any(String));
    const sdJwt = ready.body.credentials[0].credential as string;
    expect(JSON.parse(Buffer.from(sdJwt.split('.')[1], 'base64url').toString()).cnf.jwk.x).toBe(key.jwk.x);
    expect((await collect(at, accepted.body.transaction_id)).body.error).toBe('invalid_transaction_id');
    expect((await collect(at, 'unknown.transaction-id-value')).body.error).toBe('invalid_transaction_id');
    expect(((await (await fetch(offer.status_uri)).json()) as Json).status).toBe('credential_issued');
  });
});

describe('OID4VCI issuer: W3C formats', () => {
  it('jwt_vc_json, jwt_vc_json-ld and ldp_vc verify through the codec, bound to the holder DID', async () => {
    const { verifyJwtVc, verifyLdpVc } = await import('../../../services/credentials/w3c/index.ts');
    const { didJwkFromJwk } = await import('../../../services/credentials/keys/index.ts');
    for (const id of [
      'UniversityDegreeCredentialJWT',
      'UniversityDegreeCredentialJWTLD',
      'UniversityDegreeCredentialLDP',
    ]) {
      const { token } = await offerAndToken({ credential_configuration_ids: [id] });
      const key = await holder();
      const issued = await credential(token.body.access_token, {
        credential_configuration_id: id,
        proofs: { jwt: [await proof(key, await nonce())] },
      });
      expect(issued.status, id).toBe(200);
      const vc = issued.body.credentials[0].credential;
      const now = Math.floor(server.clock.now() / 1000);
      if (id === 'UniversityDegreeCredentialLDP') {
        expect(typeof vc).toBe('object');
        const verified = await verifyLdpVc(vc, { now });
        expect(verified, JSON.stringify(verified)).toMatchObject({ valid: true });
        expect(vc.credentialSubject.id).toBe(didJwkFromJwk(key.jwk));
      } else {
        const verified = await verifyJwtVc(vc, {
          format: id === 'UniversityDegreeCredentialJWT' ? 'jwt_vc_json' : 'jwt_vc_json-ld',
          now,
        });
        expect(verified, JSON.stringify(verified)).toMatchObject({ valid: true });
        expect((verified as any).credential.credentialSubject).toMatchObject({
          id: didJwkFromJwk(key.jwk),
          degree: 'Bachelor of Science',
        });
      }
    }
  });
});

describe('OID4VCI issuer: a negative per rule', () => {
  it('token: unsupported grant, unknown code, missing or unexpected tx_code, a code used twice, the fifth wrong tx_code burns it', async () => {
    const grant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
    expect((await post('/oid4vci/token', form({ grant_type: 'refresh_token', refresh_token: 'x' }))).body.error).toBe(
      'unsupported_grant_type',
    );
    expect((await post('/oid4vci/token', form({ grant_type: grant, 'pre-authorized_code': 'nope' }))).body.error).toBe(
      'invalid_grant',
    );
    const withTx = (await post('/oid4vci/offers', json({ tx_code: true }))).body;
    expect(
      (await post('/oid4vci/token', form({ grant_type: grant, 'pre-authorized_code': withTx.pre_authorized_code })))
        .body.error,
    ).toBe('invalid_request');
    const plain = (await post('/oid4vci/offers', json({}))).body;
    expect(
      (
        await post(
          '/oid4vci/token',
          form({ grant_type: grant, 'pre-authorized_code': plain.pre_authorized_code, tx_code: '123456' }),
        )
      ).body.error,
    ).toBe('invalid_request');
    expect(
      (await post('/oid4vci/token', form({ grant_type: grant, 'pre-authorized_code': plain.pre_authorized_code })))
        .status,
    ).toBe(200);
    expect(
      (await post('/oid4vci/token', form({ grant_type: grant, 'pre-authorized_code': plain.pre_authorized_code }))).body
        .error,
    ).toBe('invalid_grant');
    const wrong = withTx.tx_code_value === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++)
      expect(
        (
          await post(
            '/oid4vci/token',
            form({ grant_type: grant, 'pre-authorized_code': withTx.pre_authorized_code, tx_code: wrong }),
          )
        ).body.error,
      ).toBe('invalid_grant');
    expect(
      (
        await post(
          '/oid4vci/token',
          form({ grant_type: grant, 'pre-authorized_code': withTx.pre_authorized_code, tx_code: withTx.tx_code_value }),
        )
      ).body.error,
    ).toBe('invalid_grant');
    expect((await (await fetch(withTx.status_uri)).json()) as Json).toMatchObject({
      status: 'tx_code_burned',
      terminal: true,
      expired_reason: 'tx_code_burned',
    });
  });

  it('credential: each invalid_proof cause, invalid_nonce, batch size, id-field rule, unknown configuration, scope, token', async () => {
    const { token } = await offerAndToken({ credential_configuration_ids: ['UniversityDegreeCredential'] });
    const at = token.body.access_token as string;
    const key = await holder();
    const ask = async (proofs: string[], extra: Json = {}) =>
      (
        await credential(at, {
          credential_configuration_id: 'UniversityDegreeCredential',
          proofs: { jwt: proofs },
          ...extra,
        })
      ).body.error;
    expect(await ask([await proof(key, await nonce(), { typ: 'JWT' })])).toBe('invalid_proof');
    expect(await ask([await proof(key, await nonce(), { aud: 'https://other.example' })])).toBe('invalid_proof');
    expect(await ask([await proof(key, await nonce(), { iat: Math.floor(server.clock.now() / 1000) - 316 })])).toBe(
      'invalid_proof',
    );
    expect(await ask([await proof(key, await nonce(), { iat: Math.floor(server.clock.now() / 1000) + 16 })])).toBe(
      'invalid_proof',
    );
    expect(await ask([await proof(key, undefined)])).toBe('invalid_proof');
    expect(await ask([await proof(key, await nonce(), { header: { kid: 'did:example:123' } })])).toBe('invalid_proof');
    expect(await ask([await proof(key, await nonce(), { header: { jwk: { ...key.jwk, d: 'private' } } })])).toBe(
      'invalid_proof',
    );
    expect(await ask(['not-a-jwt'])).toBe('invalid_proof');
    const n = await nonce();
    expect(await ask([await proof(key, n), await proof(key, n)])).toBe('invalid_proof'); // repeated key
    expect(await ask([await proof(key, n), await proof(await holder(), await nonce())])).toBe('invalid_nonce'); // mixed
    expect(await ask([await proof(key, 'forged.nonce.value')])).toBe('invalid_nonce');
    // A forged MAC as long as a real one in characters (43) but longer in UTF-8 bytes.
    expect(await ask([await proof(key, `${n.split('.').slice(0, 2).join('.')}.${'a'.repeat(42)}\u00e9`)])).toBe(
      'invalid_nonce',
    );
    expect(await ask([await proof(key, n)])).toBeUndefined();
    expect(await ask([await proof(key, n)])).toBe('invalid_nonce'); // used
    expect(
      await ask([
        await proof(key, await nonce()),
        await proof(await holder(), await nonce()),
        await proof(await holder(), await nonce()),
      ]),
    ).toBe('invalid_credential_request');
    expect(
      (
        await credential(at, {
          credential_configuration_id: 'UniversityDegreeCredential',
          credential_identifier: 'x',
          proofs: { jwt: [] },
        })
      ).body.error,
    ).toBe('invalid_credential_request');
    expect(
      (
        await credential(at, {
          credential_configuration_id: 'Nope',
          proofs: { jwt: [await proof(key, await nonce())] },
        })
      ).body.error,
    ).toBe('unknown_credential_configuration');
    const scoped = await credential(at, {
      credential_configuration_id: 'MobileDrivingLicenceMsoMdoc',
      proofs: { jwt: [await proof(key, await nonce())] },
    });
    expect([scoped.status, scoped.body.error]).toEqual([403, 'insufficient_scope']);
    const none = await post('/oid4vci/credential', json({ credential_configuration_id: 'UniversityDegreeCredential' }));
    expect([none.status, none.body.error]).toEqual([401, 'invalid_token']);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it('a lapsed offer is expired in the status and closed in the log when touched', async () => {
    const offer = (await post('/oid4vci/offers', json({}))).body;
    expect(((await (await fetch(offer.status_uri)).json()) as Json).requested_by).toBe('offer');
    server.clock.advance(601_000);
    expect(((await (await fetch(offer.status_uri)).json()) as Json).status).toBe('expired');
    expect((await fetch(offer.credential_offer_uri)).status).toBe(404);
    const token = await post(
      '/oid4vci/token',
      form({
        grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
        'pre-authorized_code': offer.pre_authorized_code,
      }),
    );
    expect(token.body.error).toBe('invalid_grant');
    const events = (await server.main.ctx.log.readStream(`issuance:${offer.offer_id}`)).map((e) => e.type);
    expect(events.filter((t) => t === 'issuance.expired')).toHaveLength(1);
  });

  it('an expired c_nonce is refused, and an expired access token', async () => {
    const stale = await nonce();
    const { token: old } = await offerAndToken();
    // Past the token's 300 s and the 15 s clock skew every access-token check allows (issue 46 §2).
    server.clock.advance((300 + CLOCK_SKEW_S + 1) * 1000);
    const { token } = await offerAndToken();
    const key = await holder();
    expect(
      (
        await credential(token.body.access_token, {
          credential_configuration_id: 'MobileDrivingLicenceMsoMdoc',
          proofs: { jwt: [await proof(key, stale)] },
        })
      ).body.error,
    ).toBe('invalid_nonce');
    const expired = await credential(old.body.access_token, {
      credential_configuration_id: 'MobileDrivingLicenceMsoMdoc',
      proofs: { jwt: [await proof(key, await nonce())] },
    });
    expect([expired.status, expired.body.error]).toEqual([401, 'invalid_token']);
  });

  it('fuzzed bodies never give a 5xx', async () => {
    const { token } = await offerAndToken();
    for (const body of [
      '',
      '[]',
      '{"proofs":1}',
      '{"credential_configuration_id":{}}',
      '{"proofs":{"jwt":[1,2]},"credential_configuration_id":"UniversityDegreeCredential"}',
      '{"__proto__":{"x":1}}',
    ]) {
      for (const path of ['/oid4vci/credential', '/oid4vci/notification', '/oid4vci/offers', '/oid4vci/token']) {
        const res = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token.body.access_token}` },
          body,
        });
        expect(res.status, `${path} ${body}`).toBeLessThan(500);
      }
    }
  });
});

describe('the looking glass explains the issuance artefacts', () => {
  it('a key proof: its kind, what nonce and aud mean in it, the embedded key; the access token by its typ', async () => {
    const key = await holder();
    const decoded = (await post('/api/lookingglass/decode', json({ token: await proof(key, await nonce()) }))).body;
    expect(decoded.kind).toMatchObject({ typ: 'openid4vci-proof+jwt', reference: 'OpenID4VCI 1.0 Appendix F.1' });
    expect(decoded.claims.find((c: Json) => c.name === 'nonce').meaning).toMatch(/c_nonce/);
    expect(decoded.signature).toMatchObject({ verified: false, self_signed_valid: true, key_source: 'embedded jwk' });
    const withoutNonce = (await post('/api/lookingglass/decode', json({ token: await proof(key, undefined) }))).body;
    expect(withoutNonce.warnings.join(' ')).toMatch(/without nonce/);
    const { token } = await offerAndToken();
    const at = (await post('/api/lookingglass/decode', json({ token: token.body.access_token }))).body;
    expect(at.kind.typ).toBe('at+jwt');
    expect(at.signature).toMatchObject({ verified: true, key_source: 'portico oid4vci keys' });
  });
});

describe('OID4VCI issuer: the log', () => {
  it('keeps no code, token or nonce whole, and npm run replay folds every issuance stream', async () => {
    const { offer, token } = await offerAndToken({ tx_code: true });
    const rows = new Database(join(server.dataDir, 'main.db'), { readonly: true })
      .prepare("SELECT data FROM events WHERE stream_id LIKE 'issuance:%' OR stream_id LIKE 'once:c-nonce:%'")
      .all() as Array<{ data: string }>;
    const raw = rows.map((r) => r.data).join('\n');
    expect(rows.length).toBeGreaterThan(5);
    for (const secret of [offer.pre_authorized_code, offer.tx_code_value, token.body.access_token])
      expect(raw).not.toContain(secret);
    const replay = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/replay.ts', join(server.dataDir, 'main.db'), '--quiet'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(replay.status, replay.stdout.slice(-500)).toBe(0);
    expect(replay.stdout).toMatch(/issuance:[A-Za-z0-9_-]+ {2}\(\d+ events, (consistent|no snapshot)/);
  });
});
