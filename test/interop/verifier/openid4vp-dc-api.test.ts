import 'reflect-metadata';
import type { Jwk, JwtSigner } from '@openid4vc/oauth2';
import { Openid4vpClient } from '@openid4vc/openid4vp';
import { setGlobalConfig } from '@openid4vc/utils';
import { SessionTranscript as OwfSessionTranscript } from '@owf/mdoc';
import { createHash, X509Certificate } from 'node:crypto';
import { calculateJwkThumbprint, CompactEncrypt, compactVerify, exportJWK, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCbor } from '../../../services/credentials/mdoc/index.ts';
import { peerMdocPresentation, peerSdJwtPresentation } from '../../support/peer-holder.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueFromOurIssuer, type HolderKey } from '../../support/holder.ts';

/**
 * Issue 47 interop: `@openid4vc/openid4vp` 0.4.6's Openid4vpClient, unmodified, resolves our Digital
 * Credentials API requests (unsigned and signed with expected_origins) for an origin and builds the
 * answer; the presentations inside come from `@sd-jwt/sd-jwt-vc` and from `@auth0/mdl` over the
 * OpenID4VPDCAPIHandover as `@owf/mdoc` builds it. No presentation code of ours is involved.
 */
setGlobalConfig({ allowInsecureUrls: true });

let server: TestServer;
let holder: HolderKey;
let holderPrivate: JWK;
let sdJwtVc: string;
let mdoc: string;
let origin: string;
beforeAll(async () => {
  server = await startMainServer();
  origin = new URL(server.url).origin;
  holder = await holderKey();
  holderPrivate = await exportJWK(holder.privateKey);
  const nowS = Math.floor(server.clock.now() / 1000);
  sdJwtVc = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS)) as string;
  mdoc = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS)) as string;
});
afterAll(async () => {
  await server.close();
});

const sha = (data: Uint8Array, alg: string) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest();
const owfCrypto = { crypto: { digest: ({ bytes }: { bytes: Uint8Array }) => sha(bytes, 'sha-256') } } as never;

/** The wallet's check of a signed request: the x5c leaf chains to the verifier CA the main origin publishes. */
async function verifyRequestObject(signer: JwtSigner, jwt: { compact: string }) {
  if (signer.method !== 'x5c') return { verified: false as const };
  const ca = new X509Certificate(await (await fetch(`${server.url}/oid4vp/ca.pem`)).text());
  const leaf = new X509Certificate(Buffer.from(signer.x5c[0], 'base64'));
  if (!leaf.verify(ca.publicKey)) return { verified: false as const };
  await compactVerify(jwt.compact, leaf.publicKey);
  return { verified: true as const, signerJwk: leaf.publicKey.export({ format: 'jwk' }) as Jwk };
}

const client = new Openid4vpClient({
  callbacks: {
    fetch,
    hash: sha,
    verifyJwt: verifyRequestObject as never,
    getX509CertificateMetadata: (certificate) => {
      const names = new X509Certificate(Buffer.from(certificate, 'base64')).subjectAltName?.split(', ') ?? [];
      return { sanDnsNames: names.filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4)), sanUriNames: [] };
    },
    encryptJwe: async (encryptor, data) => {
      const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
        .setProtectedHeader({ alg: 'ECDH-ES', enc: encryptor.enc as 'A128GCM', kid: encryptor.publicJwk.kid })
        .encrypt(await importJWK(encryptor.publicJwk as JWK, 'ECDH-ES'));
      return { jwe, encryptionJwk: encryptor.publicJwk };
    },
    signJwt: () => {
      throw new Error('not used');
    },
    decryptJwe: () => {
      throw new Error('not used');
    },
  },
});

const sdJwtPresentation = (nonce: string, aud: string) =>
  peerSdJwtPresentation(
    holderPrivate,
    sdJwtVc,
    { degree: true },
    { aud, nonce, iat: Math.floor(server.clock.now() / 1000) },
  );

/** An mDL by @auth0/mdl over the OpenID4VPDCAPIHandover as @owf/mdoc builds it. */
async function mdocPresentation(nonce: string, encryptionJwk?: JWK) {
  const transcript = await OwfSessionTranscript.forOid4VpDcApi(
    {
      origin,
      nonce,
      ...(encryptionJwk
        ? { jwkThumbprint: new Uint8Array(Buffer.from(await calculateJwkThumbprint(encryptionJwk), 'base64url')) }
        : {}),
    },
    owfCrypto,
  );
  return peerMdocPresentation(holderPrivate, mdoc, decodeCbor(transcript.encode()));
}

/** The peer resolves the page's request for `origin` and builds the answer; we post it as the page would. */
async function runPeer(
  created: Record<string, any>,
  present: (request: Record<string, any>) => Promise<Record<string, unknown[]>>,
) {
  const resolved = await client.resolveOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: created.digital.requests[0].data,
    origin,
  } as never);
  const request = resolved.authorizationRequestPayload as Record<string, any>;
  const encrypted = request.response_mode === 'dc_api.jwt';
  const response = await client.createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request as never,
    authorizationResponsePayload: { vp_token: await present(request) } as never,
    origin,
    ...(encrypted
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
  } as never);
  const data = response.jarm ? { response: response.jarm.responseJwt } : response.authorizationResponsePayload;
  const answered = await exchange(server.url, new URL(created.dc_api_response_uri).pathname, json({ origin, data }));
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  return (await exchange(server.url, new URL(created.result_uri).pathname, { method: 'GET' })).body;
}

const degree = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };
const create = async (body: Record<string, unknown>) =>
  (await exchange(server.url, '/oid4vp/request/create', json(body))).body as Record<string, any>;

describe('interop: @openid4vc/openid4vp Openid4vpClient over the Digital Credentials API', () => {
  it('dc_api: SD-JWT VC by @sd-jwt/sd-jwt-vc (aud origin:<origin>) is verified', async () => {
    const created = await create({ response_mode: 'dc_api', dcql_query: degree });
    const doc = await runPeer(created, async (r) => ({
      degree: [await sdJwtPresentation(r.nonce, `origin:${origin}`)],
    }));
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
  });

  it('dc_api: mdoc by @auth0/mdl over the @owf/mdoc OpenID4VPDCAPIHandover is verified', async () => {
    const created = await create({ response_mode: 'dc_api' });
    const doc = await runPeer(created, async (r) => ({ mdl: [await mdocPresentation(r.nonce)] }));
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
  });

  it('dc_api.jwt: the peer checks expected_origins and the x5c signature; its encrypted mdoc answer is verified', async () => {
    const created = await create({ response_mode: 'dc_api.jwt' });
    const doc = await runPeer(created, async (r) => ({
      mdl: [await mdocPresentation(r.nonce, r.client_metadata.jwks.keys[0])],
    }));
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.enc).toBe('A128GCM');
  });

  it('dc_api.jwt for other origins: the peer refuses to resolve it for ours', async () => {
    const created = await create({
      response_mode: 'dc_api.jwt',
      dcql_query: degree,
      expected_origins: ['https://shop.example'],
    });
    await expect(
      client.resolveOpenId4vpAuthorizationRequest({
        authorizationRequestPayload: created.digital.requests[0].data,
        origin,
      } as never),
    ).rejects.toThrow(/expected_origins/);
  });
});
