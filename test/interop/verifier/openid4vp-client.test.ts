import 'reflect-metadata';
import type { Jwk, JwtSigner } from '@openid4vc/oauth2';
import { Openid4vpClient } from '@openid4vc/openid4vp';
import { setGlobalConfig } from '@openid4vc/utils';
import { X509Certificate, createHash } from 'node:crypto';
import {
  CompactEncrypt,
  compactVerify,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  importJWK,
  jwtVerify,
  type JWK,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didJwkToJwk } from '../../../services/credentials/keys/did-jwk.ts';
import { oid4vpSessionTranscript } from '../../../services/credentials/mdoc/index.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueFromOurIssuer, type HolderKey } from '../../support/holder.ts';
import { peerMdocPresentation, peerSdJwtPresentation } from '../../support/peer-holder.ts';

/**
 * Issue 16 interop: `@openid4vc/openid4vp` 0.4.6's Openid4vpClient, unmodified, plays the wallet
 * against our verifier for every client_id prefix and both response modes. Its callbacks check what
 * a wallet must (request signatures by x5c, DID or attested key); the presentations inside are made
 * with `@sd-jwt/sd-jwt-vc` and `@auth0/mdl`, so no presentation code of ours is involved.
 */
setGlobalConfig({ allowInsecureUrls: true });

let server: TestServer;
let holder: HolderKey;
let holderPrivate: JWK;
let sdJwtVc: string;
let mdoc: string;
beforeAll(async () => {
  // A DNS host for x509_san_dns; the test's fetch maps it to the loopback address the server listens on.
  server = await startMainServer({ baseHost: 'localhost' });
  holder = await holderKey();
  holderPrivate = await exportJWK(holder.privateKey);
  const nowS = Math.floor(server.clock.now() / 1000);
  sdJwtVc = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS, {
    via: local(server.url),
  })) as string;
  mdoc = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS, {
    via: local(server.url),
  })) as string;
});
afterAll(async () => {
  await server.close();
});

const local = (url: string) => url.replace('://localhost:', '://127.0.0.1:');
const walletFetch: typeof fetch = (input, init) => fetch(local(String(input)), init);

/** The wallet's signature check of a request object, by how it is signed. */
async function verifyRequestObject(signer: JwtSigner, jwt: { header: Record<string, unknown>; compact: string }) {
  let key: JWK;
  if (signer.method === 'x5c') {
    // Chain to the verifier CA the main origin publishes (what WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM would hold).
    const ca = new X509Certificate(await (await walletFetch(`${server.url}/oid4vp/ca.pem`)).text());
    const [leaf, ...rest] = signer.x5c.map((c) => new X509Certificate(Buffer.from(c, 'base64')));
    if (!leaf.verify(ca.publicKey) || rest.some((c) => !c.checkIssued(ca) && c.fingerprint256 !== ca.fingerprint256))
      return { verified: false as const };
    key = leaf.publicKey.export({ format: 'jwk' }) as JWK;
  } else if (signer.method === 'did') {
    key = didJwkToJwk(signer.didUrl.split('#')[0]);
  } else if (signer.method === 'jwk') {
    key = signer.publicJwk as JWK;
  } else {
    // verifier_attestation: the attestation in the `jwt` header, checked against its issuer's keys, names the signing key.
    const attestation = String(jwt.header.jwt);
    const iss = String(decodeJwt(attestation).iss);
    const meta = (await (
      await walletFetch(`${new URL(iss).origin}/.well-known/oauth-authorization-server${new URL(iss).pathname}`)
    ).json()) as { jwks_uri: string };
    const jwks = (await (await walletFetch(meta.jwks_uri)).json()) as { keys: JWK[] };
    const { payload } = await jwtVerify(attestation, createLocalJWKSet(jwks), { typ: 'verifier-attestation+jwt' });
    key = (payload.cnf as { jwk: JWK }).jwk;
  }
  try {
    await compactVerify(jwt.compact, await importJWK(key, 'ES256'));
    return { verified: true as const, signerJwk: key as Jwk };
  } catch {
    return { verified: false as const };
  }
}

const client = new Openid4vpClient({
  callbacks: {
    fetch: walletFetch,
    hash: (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest(),
    verifyJwt: verifyRequestObject as never,
    getX509CertificateMetadata: (certificate) => {
      const names = new X509Certificate(Buffer.from(certificate, 'base64')).subjectAltName?.split(', ') ?? [];
      return {
        sanDnsNames: names.filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4)),
        sanUriNames: names.filter((n) => n.startsWith('URI:')).map((n) => n.slice(4)),
      };
    },
    encryptJwe: async (encryptor, data) => {
      const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
        .setProtectedHeader({ alg: 'ECDH-ES', enc: encryptor.enc as 'A128GCM', kid: encryptor.publicJwk.kid })
        .encrypt(await importJWK(encryptor.publicJwk as JWK, 'ECDH-ES'));
      return { jwe, encryptionJwk: encryptor.publicJwk };
    },
    signJwt: () => {
      throw new Error('not used: responses are not signed');
    },
    decryptJwe: () => {
      throw new Error('not used: request objects are not encrypted');
    },
  },
});

/** An SD-JWT VC presentation by @sd-jwt/sd-jwt-vc: family_name and degree, KB-JWT for this request. */
const sdJwtPresentation = (clientId: string, nonce: string, kbClaims: Record<string, unknown> = {}) =>
  peerSdJwtPresentation(
    holderPrivate,
    sdJwtVc,
    { family_name: true, degree: true },
    { aud: clientId, nonce, iat: Math.floor(server.clock.now() / 1000), ...kbClaims },
  );

/** An mdoc DeviceResponse by @auth0/mdl over the OpenID4VP handover of this request. */
async function mdocPresentation(clientId: string, nonce: string, responseUri: string, encryptionJwk?: JWK) {
  const transcript = await oid4vpSessionTranscript({
    clientId,
    nonce,
    responseUri,
    ...(encryptionJwk ? { encryptionKey: encryptionJwk } : {}),
  });
  return peerMdocPresentation(holderPrivate, mdoc, transcript);
}

const PREFIXES = [
  'redirect_uri',
  'x509_san_dns',
  'x509_hash',
  'verifier_attestation',
  'decentralized_identifier',
] as const;
const MODES = ['direct_post', 'direct_post.jwt'] as const;
const degreeQuery = () => ({
  credentials: [
    {
      id: 'degree',
      format: 'dc+sd-jwt',
      meta: { vct_values: [`${server.url}/oid4vci/credential-types/university-degree`] },
      claims: [{ path: ['family_name'] }, { path: ['degree'] }],
    },
  ],
});

type Presenter = (
  clientId: string,
  nonce: string,
  responseUri: string,
  encJwk?: JWK,
  transactionData?: Array<{ encoded: string }>,
) => Promise<string>;

async function runWallet(created: Record<string, any>, presentation: Presenter, queryId: string) {
  const parsed = client.parseOpenid4vpAuthorizationRequest({ authorizationRequest: created.authorization_request_uri });
  const resolved = await client.resolveOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: parsed.params as never,
    ...(created.request_uri_method === 'post' ? { wallet: { metadata: {} as never } } : {}),
  });
  const request = resolved.authorizationRequestPayload as Record<string, any>;
  expect(resolved.client.effective ?? resolved.client.original?.clientId).toBeDefined();
  const encJwk =
    request.response_mode === 'direct_post.jwt' ? (request.client_metadata.jwks.keys[0] as JWK) : undefined;
  const vp = await presentation(
    request.client_id,
    request.nonce,
    request.response_uri,
    encJwk,
    resolved.transactionData as Array<{ encoded: string }> | undefined,
  );
  const response = await client.createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request as never,
    authorizationResponsePayload: { vp_token: { [queryId]: [vp] } } as never,
    ...(encJwk
      ? {
          jarm: {
            encryption: { nonce: request.nonce },
            serverMetadata: {
              authorization_signing_alg_values_supported: [],
              authorization_encryption_alg_values_supported: ['ECDH-ES'],
              authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
            },
          },
        }
      : {}),
  });
  const submitted = await client.submitOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request as never,
    authorizationResponsePayload: response.authorizationResponsePayload,
    ...(response.jarm ? { jarm: response.jarm } : {}),
  });
  return { request, submitted, jarm: response.jarm };
}

const result = async (created: Record<string, any>) =>
  (await exchange(local(server.url), `/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;

describe('interop: @openid4vc/openid4vp Openid4vpClient as the holder', () => {
  for (const prefix of PREFIXES) {
    for (const mode of MODES) {
      it(`${prefix} + ${mode}: SD-JWT VC presented by @sd-jwt/sd-jwt-vc is verified`, async () => {
        const created = (
          await exchange(
            local(server.url),
            '/oid4vp/request/create',
            json({ client_id_prefix: prefix, response_mode: mode, dcql_query: degreeQuery() }),
          )
        ).body;
        expect(created.client_id.startsWith(`${prefix}:`)).toBe(true);
        const { submitted, jarm } = await runWallet(
          created,
          (clientId, nonce) => sdJwtPresentation(clientId, nonce),
          'degree',
        );
        expect(submitted.response.status).toBe(200);
        if (mode === 'direct_post.jwt')
          expect(decodeProtectedHeader(jarm!.responseJwt)).toMatchObject({ alg: 'ECDH-ES', enc: 'A128GCM' });
        const doc = await result(created);
        expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
        expect(doc.presentations.degree[0].claims).toEqual({
          family_name: expect.any(String),
          degree: 'Bachelor of Science',
        });
        if (mode === 'direct_post.jwt') expect(doc.enc).toBe('A128GCM');
      });
    }
  }

  it('transaction data (issue 47): the peer resolves our entries, the KB-JWT of @sd-jwt/sd-jwt-vc binds their hashes', async () => {
    const payment = {
      type: 'urn:portico:transaction-data:payment-confirmation',
      credential_ids: ['degree'],
      amount: '12.00',
      currency: 'EUR',
      payee: 'Interop Shop',
    };
    const create = async () =>
      (
        await exchange(
          local(server.url),
          '/oid4vp/request/create',
          json({ client_id_prefix: 'x509_hash', dcql_query: degreeQuery(), transaction_data: [payment] }),
        )
      ).body;
    const bound = await create();
    let seen: Array<{ encoded: string }> | undefined;
    await runWallet(
      bound,
      (clientId, nonce, _uri, _enc, transactionData) => {
        seen = transactionData;
        const hashes = (transactionData ?? []).map((t) => createHash('sha256').update(t.encoded).digest('base64url'));
        return sdJwtPresentation(clientId, nonce, { transaction_data_hashes: hashes });
      },
      'degree',
    );
    expect(seen?.map((t) => t.encoded)).toEqual(bound.transaction_data);
    const doc = await result(bound);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.checks).toContainEqual({ check: 'transaction_data', verdict: 'passed' });
    // The same holder without the hashes: refused by the named check.
    const unbound = await create();
    await runWallet(unbound, (clientId, nonce) => sdJwtPresentation(clientId, nonce), 'degree');
    expect((await result(unbound)).reasons).toContainEqual(expect.objectContaining({ check: 'transaction_data' }));
  });

  it('x509_hash + direct_post.jwt + A256GCM: mdoc DeviceResponse by @auth0/mdl, handover bound to the encryption key', async () => {
    const created = (
      await exchange(
        local(server.url),
        '/oid4vp/request/create',
        json({
          client_id_prefix: 'x509_hash',
          response_mode: 'direct_post.jwt',
          encrypted_response_enc_values_supported: ['A256GCM'],
        }),
      )
    ).body;
    const { submitted } = await runWallet(created, mdocPresentation, 'mdl');
    expect(submitted.response.status).toBe(200);
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.enc).toBe('A256GCM');
    expect(doc.presentations.mdl[0].claims['org.iso.18013.5.1']).toEqual({
      family_name: expect.any(String),
      document_number: 'PD-ALICE-0001',
    });
  });

  it('request_uri_method post: the request object is fetched with POST (GET serves a wallet without POST, OpenID4VP 1.0 §5.10)', async () => {
    const created = (
      await exchange(
        local(server.url),
        '/oid4vp/request/create',
        json({ client_id_prefix: 'x509_hash', request_uri_method: 'post' }),
      )
    ).body;
    expect(new URL(created.authorization_request_uri).searchParams.get('request_uri_method')).toBe('post');
    expect((await walletFetch(created.request_uri)).status).toBe(200);
    const { submitted } = await runWallet(created, mdocPresentation, 'mdl');
    expect(submitted.response.status).toBe(200);
    expect((await result(created)).status).toBe('verified');
  });

  it('an mdoc bound to the wrong handover (no encryption key thumbprint for a .jwt request) fails device_authentication', async () => {
    const created = (
      await exchange(
        local(server.url),
        '/oid4vp/request/create',
        json({ client_id_prefix: 'x509_hash', response_mode: 'direct_post.jwt' }),
      )
    ).body;
    const { submitted } = await runWallet(created, (c, n, r) => mdocPresentation(c, n, r), 'mdl');
    expect(submitted.response.status).toBe(200);
    const doc = await result(created);
    expect(doc.status).toBe('rejected');
    expect(doc.reasons).toContainEqual(
      expect.objectContaining({ credential_query_id: 'mdl', check: 'device_authentication' }),
    );
  });
});
