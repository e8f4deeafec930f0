import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import {
  holderKey,
  issueFromOurIssuer,
  presentMdoc,
  presentSdJwt,
  type Answering,
  type HolderKey,
} from '../../support/holder.ts';

// Issue 30, verifier items 9-12: each test failed before its fix.
let server: TestServer;
let holder: HolderKey;
let sdJwt: string;
let mdl: string;
const nowS = () => Math.floor(server.clock.now() / 1000);
beforeAll(async () => {
  server = await startMainServer();
  holder = await holderKey();
  sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS())) as string;
  mdl = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS())) as string;
});
afterAll(async () => {
  await server.close();
});

const get = (path: string) => exchange(server.url, path, { method: 'GET' });
const create = async (body: Record<string, unknown>) => {
  const created = await exchange(server.url, '/oid4vp/request/create', json(body));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
};
const to = (created: any, overrides: Partial<Answering> = {}): Answering => ({
  clientId: created.client_id,
  nonce: created.nonce,
  responseUri: created.response_uri,
  nowS: nowS(),
  ...overrides,
});

describe('the result is a capability (item 9)', () => {
  it('[item 9] creation returns a 128-bit transaction_id that appears in neither the request URI nor the request object; the request id reads nothing', async () => {
    const created = await create({
      client_id_prefix: 'x509_hash',
      dcql_query: { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] },
    });
    expect(created.transaction_id).toMatch(new RegExp(`^${created.request_id}\\.[A-Za-z0-9_-]{22}$`));
    const secret = created.transaction_id.split('.')[1] as string;
    expect(Buffer.from(secret, 'base64url')).toHaveLength(16);
    expect(created.result_uri).toBe(`${server.url}/oid4vp/result/${created.transaction_id}`);
    const requestObject = await (await fetch(created.request_uri)).text();
    const payload = Buffer.from(requestObject.split('.')[1], 'base64url').toString();
    for (const place of [created.authorization_request_uri, created.request_uri, requestObject, payload])
      expect(place).not.toContain(secret);
    expect(await get(`/oid4vp/result/${created.request_id}`)).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
    // A guessed secret for a known request id reads nothing either.
    expect((await get(`/oid4vp/result/${created.request_id}.${'A'.repeat(22)}`)).status).toBe(404);
    const vp = await presentSdJwt(sdJwt, holder, to(created));
    expect(
      (
        await exchange(
          server.url,
          '/oid4vp/response',
          form({ vp_token: JSON.stringify({ degree: [vp] }), state: created.state }),
        )
      ).status,
    ).toBe(200);
    const doc = await get(`/oid4vp/result/${created.transaction_id}`);
    expect(doc.body).toMatchObject({
      request_id: created.request_id,
      status: 'verified',
      presentations: { degree: [{ format: 'dc+sd-jwt', claims: { degree: expect.any(String) } }] },
    });
  });

  it('[item 9] where the answer produced a response_code, claims need it; without it status and verdicts only; a wrong code is 400', async () => {
    const c = await create({ profile: 'haip' });
    const requestObject = await (await fetch(c.request_uri)).text();
    const key = JSON.parse(Buffer.from(requestObject.split('.')[1], 'base64url').toString()).client_metadata.jwks
      .keys[0] as JWK;
    const vp = await presentMdoc(mdl, holder, to(c, { encryptionJwk: key }), ['family_name', 'document_number']);
    const jwe = await new CompactEncrypt(
      new TextEncoder().encode(JSON.stringify({ vp_token: { mdl: [vp] }, state: c.state })),
    )
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: key.kid })
      .encrypt(await importJWK(key, 'ECDH-ES'));
    const answered = await exchange(server.url, '/oid4vp/response', form({ response: jwe }));
    const redirect = new URL(answered.body.redirect_uri);
    expect(redirect.pathname).toBe(`/oid4vp/result/${c.transaction_id}`);
    const code = redirect.searchParams.get('response_code')!;
    const withCode = await get(`/oid4vp/result/${c.transaction_id}?response_code=${code}`);
    expect(withCode.body).toMatchObject({
      status: 'verified',
      presentations: { mdl: [{ format: 'mso_mdoc', claims: expect.anything() }] },
    });
    expect(JSON.stringify(withCode.body)).toContain('family_name');
    const without = await get(`/oid4vp/result/${c.transaction_id}`);
    expect(without.status).toBe(200);
    expect(without.body).toMatchObject({
      status: 'verified',
      reasons: [],
      response_code_required: true,
      presentations: { mdl: [{ format: 'mso_mdoc' }] },
    });
    expect(without.body.presentations.mdl[0].claims).toBeUndefined();
    expect(JSON.stringify(without.body)).not.toContain('family_name');
    const wrong = await get(`/oid4vp/result/${c.transaction_id}?response_code=wrong`);
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    // Issue 31: the stream export follows the same rule: claims only with the response_code too.
    const exportOf = (query: string) => get(`/api/streams/presentation:${c.request_id}/export?${query}`);
    const sealed = await exportOf(`transaction_id=${c.transaction_id}`);
    const disclosed = (doc: any) =>
      doc.events.find((e: any) => e.type === 'presentation.verified').data.presentations.mdl[0];
    expect(sealed.body.final_state).toBe('verified');
    expect(disclosed(sealed.body)).toEqual({ format: 'mso_mdoc', issuer: expect.any(String) });
    const opened = await exportOf(`transaction_id=${c.transaction_id}&response_code=${code}`);
    expect(disclosed(opened.body).claims).toEqual(withCode.body.presentations.mdl[0].claims);
    expect((await exportOf(`transaction_id=${c.transaction_id}&response_code=wrong`)).status).toBe(400);
  });
});

describe('405, query ids and advertised formats (items 10-12)', () => {
  it('[item 10] the wrong request-URI method is 405 with Allow naming the right one; a post request may be fetched by GET (OpenID4VP 1.0 §5.10, issue 45 item 24)', async () => {
    const byGet = await create({ client_id_prefix: 'x509_hash' });
    const posted = await fetch(byGet.request_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'wallet_nonce=n',
    });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET');
    const byPost = await create({ client_id_prefix: 'x509_hash', request_uri_method: 'post' });
    const got = await fetch(byPost.request_uri);
    expect(got.status).toBe(200);
  });

  it('[item 11] a credential query id of __proto__ keeps its presentation in the stored result', async () => {
    const c = await create({
      dcql_query: { credentials: [{ id: '__proto__', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] },
    });
    const vp = await presentSdJwt(sdJwt, holder, to(c));
    expect(
      (
        await exchange(
          server.url,
          '/oid4vp/response',
          form({ vp_token: JSON.stringify(JSON.parse(`{"__proto__":[${JSON.stringify(vp)}]}`)), state: c.state }),
        )
      ).status,
    ).toBe(200);
    const text = await (await fetch(c.result_uri)).text();
    const doc = JSON.parse(text);
    expect(doc.status).toBe('verified');
    expect(Object.keys(doc.presentations)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(doc.presentations, '__proto__')?.value[0]).toMatchObject({
      format: 'dc+sd-jwt',
      claims: { degree: expect.any(String) },
    });
  });

  it('[item 12] vp_formats_supported names only the formats OpenID4VP 1.0 Appendix B defines', async () => {
    const c = await create({ client_id_prefix: 'x509_hash' });
    const requestObject = await (await fetch(c.request_uri)).text();
    const formats = Object.keys(
      JSON.parse(Buffer.from(requestObject.split('.')[1], 'base64url').toString()).client_metadata.vp_formats_supported,
    );
    expect(formats.sort()).toEqual(['dc+sd-jwt', 'jwt_vc_json', 'ldp_vc', 'mso_mdoc']);
  });
});
