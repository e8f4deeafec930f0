import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { SignJWT, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, importX509, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 15: HAIP configurations: client attestation + PoP (challenge endpoint), DPoP, key attestations with levels.
let server: TestServer;
let issuer: string;
let attester: {
  client_attestation_attester_jwk: JWK & { x5c: string[] };
  key_attestation_jwk: JWK & { x5c: string[] };
};
beforeAll(async () => {
  server = await startMainServer();
  issuer = `${server.url}/oid4vci`;
  attester = (await (await fetch(`${issuer}/demo/attester`)).json()) as typeof attester;
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, any>;
const now = () => Math.floor(server.clock.now() / 1000);
const post = (path: string, init: RequestInit) => exchange(server.url, path, init);
const keyPair = async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: await exportJWK(publicKey) };
};
const signWith = async (jwk: JWK & { x5c?: string[] }, header: Json, claims: Json) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'ES256', ...header }).sign(await importJWK(jwk, 'ES256'));

/** A wallet instance: its client key, attested by the demo attester. */
async function attestedWallet(clientId = 'portico-wallet') {
  const clientKey = await keyPair();
  const attestation = await signWith(
    attester.client_attestation_attester_jwk,
    { typ: 'oauth-client-attestation+jwt', x5c: attester.client_attestation_attester_jwk.x5c },
    { iss: 'https://attester.example', sub: clientId, cnf: { jwk: clientKey.jwk }, iat: now(), exp: now() + 3600 },
  );
  const headers = async (overrides: Json = {}) => ({
    'oauth-client-attestation': attestation,
    'oauth-client-attestation-pop': await new SignJWT({
      iss: clientId,
      aud: issuer,
      jti: crypto.randomUUID(),
      iat: now(),
      ...overrides,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation-pop+jwt' })
      .sign(clientKey.privateKey),
  });
  return { clientId, headers };
}
const dpopKey = await keyPair();
const dpop = (htm: string, htu: string, ath?: string) =>
  new SignJWT({ htm, htu, jti: crypto.randomUUID(), ...(ath ? { ath } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopKey.jwk })
    .setIssuedAt(now())
    .sign(dpopKey.privateKey);

async function keyAttestation(keys: JWK[], claims: Json = {}) {
  return signWith(
    attester.key_attestation_jwk,
    { typ: 'key-attestation+jwt', x5c: attester.key_attestation_jwk.x5c },
    {
      iss: 'https://attester.example',
      iat: now(),
      exp: now() + 300,
      attested_keys: keys,
      key_storage: ['iso_18045_moderate'],
      user_authentication: ['iso_18045_moderate'],
      ...claims,
    },
  );
}
async function proofWith(
  holder: { privateKey: CryptoKey; jwk: JWK },
  nonce: string,
  clientId: string,
  attestationJwt?: string,
) {
  return new SignJWT({ nonce, iss: clientId })
    .setProtectedHeader({
      alg: 'ES256',
      typ: 'openid4vci-proof+jwt',
      jwk: holder.jwk,
      ...(attestationJwt ? { key_attestation: attestationJwt } : {}),
    })
    .setAudience(issuer)
    .setIssuedAt(now())
    .sign(holder.privateKey);
}

describe('HAIP issuance', () => {
  it('demo attester material is published with x5c chains; AS metadata names attest_jwt_client_auth and the challenge endpoint', async () => {
    expect(attester.client_attestation_attester_jwk).toMatchObject({
      kty: 'EC',
      alg: 'ES256',
      kid: 'demo-client-attester',
      d: expect.any(String),
    });
    expect(attester.client_attestation_attester_jwk.x5c).toHaveLength(2);
    const env = ((await (await fetch(`${issuer}/demo/attester`)).json()) as Json).env;
    expect(JSON.parse(env.WALLET_CLIENT_ATTESTATION_KEY_ATTESTATION_JWK_JSON).kid).toBe('demo-key-attester');
    const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server/oid4vci`)).json()) as Json;
    expect(as.token_endpoint_auth_methods_supported).toContain('attest_jwt_client_auth');
    expect(as.challenge_endpoint).toBe(`${issuer}/challenge`);
  });

  it('token: HAIP needs attestation (401) and DPoP (400); PoP jti single use; the challenge is spent; then a key-attested mdoc', async () => {
    const wallet = await attestedWallet();
    const offer = (
      await post('/oid4vci/offers', json({ credential_configuration_ids: ['MobileDrivingLicenceMsoMdocHAIP'] }))
    ).body;
    const grant = {
      grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      'pre-authorized_code': offer.pre_authorized_code,
    };
    expect(
      (await post('/oid4vci/token', form(grant, { dpop: await dpop('POST', `${issuer}/token`) }))).body.error,
    ).toBe('invalid_client');
    expect((await post('/oid4vci/token', form(grant, await wallet.headers()))).body.error).toBe('invalid_dpop_proof');
    const headers = await wallet.headers({
      challenge: (await post('/oid4vci/challenge', { method: 'POST' })).body.attestation_challenge,
    });
    // The same PoP again: refused (its jti was spent on first sight).
    const reused = await post(
      '/oid4vci/token',
      form({ ...grant, 'pre-authorized_code': 'x' }, { ...headers, dpop: await dpop('POST', `${issuer}/token`) }),
    );
    expect(reused.body.error).toBe('invalid_grant'); // attestation passed, the grant failed: the PoP jti is spent all the same
    expect(
      (await post('/oid4vci/token', form(grant, { ...headers, dpop: await dpop('POST', `${issuer}/token`) }))).body
        .error,
    ).toBe('invalid_client');
    const forged = await post(
      '/oid4vci/token',
      form(grant, {
        ...(await wallet.headers({ challenge: 'not-a-challenge' })),
        dpop: await dpop('POST', `${issuer}/token`),
      }),
    );
    expect(forged.body.error).toBe('invalid_client');
    const token = await post(
      '/oid4vci/token',
      form(grant, {
        ...(await wallet.headers({
          challenge: (await post('/oid4vci/challenge', { method: 'POST' })).body.attestation_challenge,
        })),
        dpop: await dpop('POST', `${issuer}/token`),
      }),
    );
    expect(token.status).toBe(200);
    expect(token.body.token_type).toBe('DPoP');

    const at = token.body.access_token as string;
    const ath = createHash('sha256').update(at).digest('base64url');
    const ask = async (proofs: string[]) =>
      post(
        '/oid4vci/credential',
        json(
          { credential_configuration_id: 'MobileDrivingLicenceMsoMdocHAIP', proofs: { jwt: proofs } },
          { authorization: `DPoP ${at}`, dpop: await dpop('POST', `${issuer}/credential`, ath) },
        ),
      );
    const nonce = async () => (await post('/oid4vci/nonce', { method: 'POST' })).body.c_nonce as string;
    const [a, b] = [await keyPair(), await keyPair()];
    expect((await ask([await proofWith(a, await nonce(), wallet.clientId)])).body.error).toBe('invalid_proof'); // no key attestation
    const n1 = await nonce();
    expect((await ask([await proofWith(a, n1, wallet.clientId, await keyAttestation([b.jwk]))])).body.error).toBe(
      'invalid_proof',
    ); // key not attested
    const n2 = await nonce();
    expect(
      (
        await ask([
          await proofWith(a, n2, wallet.clientId, await keyAttestation([a.jwk], { key_storage: ['iso_18045_basic'] })),
        ])
      ).body.error,
    ).toBe('invalid_proof'); // level unmet
    const n3 = await nonce();
    expect(
      (await ask([await proofWith(a, n3, wallet.clientId, await keyAttestation([a.jwk], { exp: undefined }))])).body
        .error,
    ).toBe('invalid_proof'); // no exp
    const n4 = await nonce();
    expect(
      (await ask([await proofWith(a, n4, wallet.clientId, await keyAttestation([a.jwk], { nonce: 'other' }))])).body
        .error,
    ).toBe('invalid_proof'); // wrong nonce
    const n5 = await nonce();
    const shared = await keyAttestation([a.jwk, b.jwk], { nonce: n5 });
    const issued = await ask([
      await proofWith(a, n5, wallet.clientId, shared),
      await proofWith(b, n5, wallet.clientId, shared),
    ]);
    expect(issued.status).toBe(200);
    expect(issued.body.credentials).toHaveLength(2);
    const status = (await (await fetch(offer.status_uri)).json()) as Json;
    expect(status).toMatchObject({
      attested: true,
      challenge_used: true,
      client_id: wallet.clientId,
      token_type: 'DPoP',
      key_attestation: { key_storage: ['iso_18045_moderate'], user_authentication: ['iso_18045_moderate'] },
    });
  });

  it('an attestation from an untrusted attester is invalid_client; the HAIP SD-JWT VC is signed by the document signer with x5c', async () => {
    const rogue = await generateKeyPair('ES256', { extractable: true });
    const rogueJwk = { ...(await exportJWK(rogue.privateKey)), x5c: attester.client_attestation_attester_jwk.x5c };
    const clientKey = await keyPair();
    const attestation = await signWith(
      rogueJwk,
      { typ: 'oauth-client-attestation+jwt', x5c: rogueJwk.x5c },
      { sub: 'w', cnf: { jwk: clientKey.jwk }, exp: now() + 60 },
    );
    const pop = await new SignJWT({ iss: 'w', aud: issuer, jti: crypto.randomUUID(), iat: now() })
      .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation-pop+jwt' })
      .sign(clientKey.privateKey);
    const offer = (
      await post('/oid4vci/offers', json({ credential_configuration_ids: ['UniversityDegreeCredentialHAIP'] }))
    ).body;
    const grant = {
      grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      'pre-authorized_code': offer.pre_authorized_code,
    };
    expect(
      (
        await post(
          '/oid4vci/token',
          form(grant, {
            'oauth-client-attestation': attestation,
            'oauth-client-attestation-pop': pop,
            dpop: await dpop('POST', `${issuer}/token`),
          }),
        )
      ).status,
    ).toBe(401);
    const wallet = await attestedWallet('wallet-2');
    const token = await post(
      '/oid4vci/token',
      form(grant, { ...(await wallet.headers()), dpop: await dpop('POST', `${issuer}/token`) }),
    );
    const at = token.body.access_token as string;
    const ath = createHash('sha256').update(at).digest('base64url');
    const holder = await keyPair();
    const n = (await post('/oid4vci/nonce', { method: 'POST' })).body.c_nonce;
    const issued = await post(
      '/oid4vci/credential',
      json(
        {
          credential_configuration_id: 'UniversityDegreeCredentialHAIP',
          proofs: {
            jwt: [
              await proofWith(
                holder,
                n,
                'wallet-2',
                await keyAttestation([holder.jwk], { key_storage: [], user_authentication: [] }),
              ),
            ],
          },
        },
        { authorization: `DPoP ${at}`, dpop: await dpop('POST', `${issuer}/credential`, ath) },
      ),
    );
    expect(issued.status).toBe(200);
    const header = JSON.parse(Buffer.from(issued.body.credentials[0].credential.split('.')[0], 'base64url').toString());
    expect(header.x5c).toHaveLength(1);
    expect(header.kid).toBeUndefined();
    // Issue 45 item 11: @sd-jwt/sd-jwt-vc's default verify(), trusting the credential's x5c leaf, checks
    // its status list with that same key: the list is signed by the document signer and carries its x5c.
    const leaf = await exportJWK(
      await importX509(`-----BEGIN CERTIFICATE-----\n${header.x5c[0]}\n-----END CERTIFICATE-----`, 'ES256'),
    );
    const peer = new SDJwtVcInstance({ verifier: await ES256.getVerifier(leaf), hasher: digest, hashAlg: 'sha-256' });
    const credential = issued.body.credentials[0].credential as string;
    await expect(peer.verify(credential)).resolves.toMatchObject({ payload: { iss: issuer } });
    const uri = (await peer.decode(credential)).jwt!.payload!.status as Json;
    const list = await (await fetch(uri.status_list.uri, { headers: { accept: 'application/statuslist+jwt' } })).text();
    expect(decodeProtectedHeader(list).x5c).toEqual(header.x5c);
  });
});

describe('issuer material across a restart', () => {
  it('the IACA, the request encryption key and the demo attester stay the same, and are served again', async () => {
    const first = await startMainServer();
    const read = async (s: TestServer) => ({
      iaca: await (await fetch(`${s.url}/oid4vci/iaca.pem`)).text(),
      enc: ((await (await fetch(`${s.url}/.well-known/openid-credential-issuer/oid4vci`)).json()) as Json)
        .credential_request_encryption.jwks.keys[0].x,
      attester: ((await (await fetch(`${s.url}/oid4vci/demo/attester`)).json()) as Json).client_attestation_attester_jwk
        .d,
    });
    const before = await read(first);
    await first.close({ keepData: true });
    const again = await startMainServer({ dataDir: first.dataDir });
    try {
      expect(await read(again)).toEqual(before);
    } finally {
      await again.close();
    }
  });
});
