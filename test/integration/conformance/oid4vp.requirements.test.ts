import { X509Certificate, createHash } from 'node:crypto';
import { CompactEncrypt, compactVerify, importJWK, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer } from '../../support/main-server.ts';
import {
  holderKey,
  issueFromOurIssuer,
  presentMdoc,
  presentSdJwt,
  type Answering,
  type HolderKey,
} from '../../support/holder.ts';
import { useRequirementKit } from '../../support/requirement-kit.ts';

// Requirements of OpenID4VP 1.0 on the verifier; each title starts with the registry id it proves.
const ctx = useRequirementKit();
let holder: HolderKey;
let sdJwt: string;
let mdl: string;
beforeAll(async () => {
  holder = await holderKey();
  sdJwt = (await issueFromOurIssuer(ctx.server.url, 'UniversityDegreeCredential', holder, ctx.k.now())) as string;
  mdl = (await issueFromOurIssuer(ctx.server.url, 'MobileDrivingLicenceMsoMdoc', holder, ctx.k.now())) as string;
});

const degree = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };
const create = async (body: Record<string, unknown> = { dcql_query: degree }) =>
  (await ctx.k.post('/oid4vp/request/create', json(body))).body;
const to = (c: any, overrides: Partial<Answering> = {}): Answering => ({
  clientId: c.client_id,
  nonce: c.nonce,
  responseUri: c.response_uri,
  nowS: ctx.k.now(),
  ...overrides,
});
const answer = (c: any, vpToken: unknown) =>
  ctx.k.post('/oid4vp/response', form({ vp_token: JSON.stringify(vpToken), state: c.state }));
const result = async (c: any) => (await ctx.k.get(`/oid4vp/result/${c.transaction_id}`)).body;
const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());

describe('OpenID4VP 1.0 (verifier)', () => {
  it('[oid4vp-001] a request object for any wallet has aud https://self-issued.me/v2', async () => {
    const c = await create({ client_id_prefix: 'x509_hash' });
    expect(payloadOf(await (await fetch(c.request_uri)).text()).aud).toBe('https://self-issued.me/v2');
  });
  it('[oid4vp-002] the request URI answers application/oauth-authz-req+jwt, and a POSTed wallet_nonce is in the request object', async () => {
    const c = await create({ client_id_prefix: 'x509_hash', request_uri_method: 'post' });
    const res = await fetch(c.request_uri, form({ wallet_nonce: 'qPmxiNFCR3QTm19POc8u', wallet_metadata: '{}' }));
    expect(res.headers.get('content-type')).toMatch(/^application\/oauth-authz-req\+jwt/);
    expect(payloadOf(await res.text())).toMatchObject({ wallet_nonce: 'qPmxiNFCR3QTm19POc8u', client_id: c.client_id });
  });
  it('[oid4vp-003] x509_hash: the client identifier is the hash of the x5c leaf, whose key signs the request object', async () => {
    const c = await create({ client_id_prefix: 'x509_hash' });
    const jwt = await (await fetch(c.request_uri)).text();
    const leaf = new X509Certificate(
      Buffer.from(JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()).x5c[0], 'base64'),
    );
    expect(c.client_id).toBe(`x509_hash:${createHash('sha256').update(leaf.raw).digest('base64url')}`);
    await expect(compactVerify(jwt, leaf.publicKey)).resolves.toBeTruthy();
  });
  it('[oid4vp-004] x509_san_dns: the client identifier is a DNS name of the leaf and the host of response_uri', async () => {
    const named = await startMainServer({ baseHost: 'localhost' });
    try {
      const c = (
        await exchange(
          named.url.replace('localhost', '127.0.0.1'),
          '/oid4vp/request/create',
          json({ client_id_prefix: 'x509_san_dns' }),
        )
      ).body;
      expect(c.client_id).toBe('x509_san_dns:localhost');
      const jwt = await (await fetch(c.request_uri.replace('localhost', '127.0.0.1'))).text();
      const leaf = new X509Certificate(
        Buffer.from(JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()).x5c[0], 'base64'),
      );
      expect(leaf.subjectAltName).toContain('DNS:localhost');
      expect(new URL(payloadOf(jwt).response_uri).hostname).toBe('localhost');
    } finally {
      await named.close();
    }
  });
  it('[oid4vp-005] redirect_uri: the request is passed by value, unsigned, and the client identifier is the response URI', async () => {
    const c = await create();
    const params = new URL(c.authorization_request_uri).searchParams;
    expect(params.get('request_uri')).toBeNull();
    expect(params.get('request')).toBeNull();
    expect(c.client_id).toBe(`redirect_uri:${params.get('response_uri')}`);
  });
  it('[oid4vp-006] vp_token is keyed by credential query id, one presentation unless multiple', async () => {
    const c = await create();
    const vp = await presentSdJwt(sdJwt, holder, to(c));
    await answer(c, { degree: [vp, vp] });
    expect((await result(c)).reasons[0]).toMatchObject({ credential_query_id: 'degree', check: 'vp_token' });
  });
  it('[oid4vp-007] the response URI answers 200 with a JSON object once it processed the response', async () => {
    const c = await create();
    const res = await fetch(
      `${ctx.server.url}/oid4vp/response`,
      form({ vp_token: JSON.stringify({ degree: [await presentSdJwt(sdJwt, holder, to(c))] }), state: c.state }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({});
  });
  it('[oid4vp-008] encrypted responses: the key names its alg, and an enc the verifier did not offer is refused', async () => {
    const c = await create({ response_mode: 'direct_post.jwt', dcql_query: degree });
    const metadata = JSON.parse(new URL(c.authorization_request_uri).searchParams.get('client_metadata')!);
    const key = metadata.jwks.keys[0] as JWK;
    expect(key.alg).toBe('ECDH-ES');
    expect(metadata.encrypted_response_enc_values_supported).toEqual(['A128GCM']);
    const jwe = await new CompactEncrypt(
      new TextEncoder().encode(
        JSON.stringify({ vp_token: { degree: [await presentSdJwt(sdJwt, holder, to(c))] }, state: c.state }),
      ),
    )
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', kid: key.kid })
      .encrypt(await importJWK(key, 'ECDH-ES'));
    expect((await ctx.k.post('/oid4vp/response', form({ response: jwe }))).status).toBe(400);
  });
  it('[oid4vp-009] direct_post.jwt: an unencrypted vp_token is refused; an unencrypted error is taken', async () => {
    const c = await create({ response_mode: 'direct_post.jwt', dcql_query: degree });
    expect((await answer(c, { degree: [await presentSdJwt(sdJwt, holder, to(c))] })).status).toBe(400);
    expect((await ctx.k.post('/oid4vp/response', form({ error: 'invalid_request', state: c.state }))).status).toBe(200);
    expect((await result(c)).status).toBe('wallet_error');
  });
  it('[oid4vp-010] every presentation must carry the nonce of the request', async () => {
    const c = await create();
    await answer(c, { degree: [await presentSdJwt(sdJwt, holder, to(c, { nonce: 'from-another-transaction' }))] });
    expect(await result(c)).toMatchObject({ status: 'rejected', reasons: [{ check: 'nonce' }] });
  });
  it('[oid4vp-011] the KB-JWT aud is the full client identifier, prefix included', async () => {
    const c = await create({ client_id_prefix: 'x509_hash', dcql_query: degree });
    await answer(c, {
      degree: [await presentSdJwt(sdJwt, holder, to(c, { clientId: c.client_id.slice('x509_hash:'.length) }))],
    });
    expect(await result(c)).toMatchObject({ status: 'rejected', reasons: [{ check: 'aud' }] });
  });
  it('[oid4vp-012] an mdoc device signature covers the OpenID4VPHandover of this client_id, nonce, response_uri and encryption key', async () => {
    const c = await create({ client_id_prefix: 'x509_hash', response_mode: 'direct_post.jwt' });
    const key = JSON.parse(
      Buffer.from((await (await fetch(c.request_uri)).text()).split('.')[1], 'base64url').toString(),
    ).client_metadata.jwks.keys[0] as JWK;
    const send = async (encryptionJwk?: JWK) => {
      const vp = await presentMdoc(mdl, holder, to(c, encryptionJwk ? { encryptionJwk } : {}), [
        'family_name',
        'document_number',
      ]);
      const jwe = await new CompactEncrypt(
        new TextEncoder().encode(JSON.stringify({ vp_token: { mdl: [vp] }, state: c.state })),
      )
        .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: key.kid })
        .encrypt(await importJWK(key, 'ECDH-ES'));
      return ctx.k.post('/oid4vp/response', form({ response: jwe }));
    };
    expect((await send()).status).toBe(200); // handover without the key thumbprint
    expect(await result(c)).toMatchObject({ status: 'rejected', reasons: [{ check: 'device_authentication' }] });
  });
  it('[oid4vp-013] the verifier checks returned credentials against its query itself', async () => {
    const c = await create({
      dcql_query: {
        credentials: [
          { id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'], values: ['Master of Arts'] }] },
        ],
      },
    });
    await answer(c, { degree: [await presentSdJwt(sdJwt, holder, to(c))] });
    expect(await result(c)).toMatchObject({ status: 'rejected', reasons: [{ check: 'dcql' }] });
  });
  it('[oid4vp-014] a redirect_uri returned by the response URI carries a fresh random value of at least 128 bits', async () => {
    const c = await create({ profile: 'haip' });
    const key = JSON.parse(
      Buffer.from((await (await fetch(c.request_uri)).text()).split('.')[1], 'base64url').toString(),
    ).client_metadata.jwks.keys[0] as JWK;
    const vp = await presentMdoc(mdl, holder, to(c, { encryptionJwk: key }), ['family_name', 'document_number']);
    const jwe = await new CompactEncrypt(
      new TextEncoder().encode(JSON.stringify({ vp_token: { mdl: [vp] }, state: c.state })),
    )
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: key.kid })
      .encrypt(await importJWK(key, 'ECDH-ES'));
    const res = await ctx.k.post('/oid4vp/response', form({ response: jwe }));
    const code = new URL(res.body.redirect_uri).searchParams.get('response_code')!;
    expect(Buffer.from(code, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
  it('[oid4vp-015] each request has a fresh nonce of at least 128 bits in URL-safe characters', async () => {
    const [a, b] = [await create(), await create()];
    expect(a.nonce).not.toBe(b.nonce);
    for (const n of [a.nonce, b.nonce]) {
      expect(n).toMatch(/^[A-Za-z0-9._~-]+$/);
      expect(Buffer.from(n, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    }
  });
  it('[oid4vp-016] an error response posted with state is taken and answered 200', async () => {
    const c = await create();
    const res = await ctx.k.post(
      '/oid4vp/response',
      form({ error: 'access_denied', error_description: 'declined', state: c.state }),
    );
    expect([res.status, res.body]).toEqual([200, {}]);
    expect((await result(c)).wallet_error).toEqual({ error: 'access_denied', error_description: 'declined' });
  });
});
