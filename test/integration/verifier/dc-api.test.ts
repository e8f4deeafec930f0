import { X509Certificate } from 'node:crypto';
import { CompactEncrypt, compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeviceResponse,
  dcApiSessionTranscript,
  oid4vpSessionTranscript,
  parseIssuerSigned,
} from '../../../services/credentials/mdoc/index.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueFromOurIssuer, presentSdJwt, type HolderKey } from '../../support/holder.ts';

// Issue 47: OpenID4VP over the Digital Credentials API (OpenID4VP 1.0 Appendix A) at the verifier.
let server: TestServer;
let holder: HolderKey;
let sdJwt: string;
let mdl: string;
let origin: string;
const nowS = () => Math.floor(server.clock.now() / 1000);
beforeAll(async () => {
  server = await startMainServer();
  origin = new URL(server.url).origin;
  holder = await holderKey();
  sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS())) as string;
  mdl = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS())) as string;
});
afterAll(async () => {
  await server.close();
});

const degree = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };
const post = (path: string, init: RequestInit) => exchange(server.url, path, init);
async function create(body: Record<string, unknown>) {
  const created = await post('/oid4vp/request/create', json(body));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
const respond = (created: any, body: unknown) =>
  exchange(created.dc_api_response_uri.replace(/^.*\/oid4vp/, `${server.url}/oid4vp`), '', json(body));
const result = async (created: any) => (await fetch(created.result_uri)).json() as Promise<Record<string, any>>;
const sdJwtFor = (nonce: string, aud: string) =>
  presentSdJwt(sdJwt, holder, { clientId: aud, nonce, responseUri: '', nowS: nowS() });
async function mdocFor(transcript: unknown[]) {
  const response = createDeviceResponse({
    issuerSigned: parseIssuerSigned(Buffer.from(mdl, 'base64url')),
    disclose: 'all',
    deviceKey: { privateKey: holder.privateKey },
    sessionTranscript: transcript,
  });
  return Buffer.from(response).toString('base64url');
}

describe('the Digital Credentials API at the verifier', () => {
  it('dc_api: an unsigned request (no client_id, no state, no response_uri) in the exact digital argument', async () => {
    const created = await create({ response_mode: 'dc_api', dcql_query: degree });
    expect(created.client_id).toBeUndefined();
    expect(created.authorization_request_uri).toBeUndefined();
    expect(created.expected_origins).toEqual([origin]);
    expect(created.dc_api_page).toBe(`${server.url}/oid4vp/dc-api/${created.transaction_id}`);
    const [request] = created.digital.requests;
    expect(request.protocol).toBe('openid4vp-v1-unsigned');
    expect(request.data).toEqual({
      response_type: 'vp_token',
      response_mode: 'dc_api',
      nonce: created.nonce,
      dcql_query: degree,
      client_metadata: expect.objectContaining({ vp_formats_supported: expect.any(Object) }),
    });
  });

  it('an SD-JWT VC whose KB-JWT names origin:<origin> is verified; the result names the origin', async () => {
    const created = await create({ response_mode: 'dc_api', dcql_query: degree });
    const vp = await sdJwtFor(created.nonce, `origin:${origin}`);
    const answered = await respond(created, { origin, data: { vp_token: { degree: [vp] } } });
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.origin).toBe(origin);
    expect(doc.checks[0]).toEqual({ check: 'origin', verdict: 'passed' });
  });

  it('refused by named checks: an unexpected origin, the client_id as audience; a replay is refused', async () => {
    const elsewhere = await create({ response_mode: 'dc_api', dcql_query: degree });
    const vp = await sdJwtFor(elsewhere.nonce, 'origin:https://evil.example');
    await respond(elsewhere, { origin: 'https://evil.example', data: { vp_token: { degree: [vp] } } });
    expect((await result(elsewhere)).reasons).toEqual([expect.objectContaining({ check: 'origin' })]);

    const wrongAud = await create({ response_mode: 'dc_api', dcql_query: degree });
    const unbound = await sdJwtFor(wrongAud.nonce, 'redirect_uri:https://verifier.example/cb');
    await respond(wrongAud, { origin, data: { vp_token: { degree: [unbound] } } });
    expect((await result(wrongAud)).reasons[0]).toMatchObject({ check: 'aud' });

    const replayed = await respond(wrongAud, { origin, data: { vp_token: { degree: [unbound] } } });
    expect(replayed.status).toBe(400);
    expect(replayed.body.error_description).toMatch(/^replay/);
  });

  it('mdoc: the OpenID4VPDCAPIHandover is checked; the redirect handover fails device_authentication', async () => {
    const created = await create({ response_mode: 'dc_api' });
    const vp = await mdocFor(await dcApiSessionTranscript({ origin, nonce: created.nonce }));
    await respond(created, { origin, data: { vp_token: { mdl: [vp] } } });
    expect((await result(created)).status).toBe('verified');

    const wrong = await create({ response_mode: 'dc_api' });
    const redirect = await mdocFor(
      await oid4vpSessionTranscript({ clientId: `origin:${origin}`, nonce: wrong.nonce, responseUri: origin }),
    );
    await respond(wrong, { origin, data: { vp_token: { mdl: [redirect] } } });
    expect((await result(wrong)).reasons[0]).toMatchObject({ check: 'device_authentication' });
  });

  it('dc_api.jwt: a request signed by x509_hash with expected_origins; the encrypted answer is verified', async () => {
    const origins = [origin, 'https://shop.example'];
    const created = await create({ response_mode: 'dc_api.jwt', dcql_query: degree, expected_origins: origins });
    const [request] = created.digital.requests;
    expect(request.protocol).toBe('openid4vp-v1-signed');
    expect(Object.keys(request.data)).toEqual(['request']);
    const header = decodeProtectedHeader(request.data.request);
    const leaf = new X509Certificate(Buffer.from((header.x5c as string[])[0], 'base64'));
    await compactVerify(request.data.request, leaf.publicKey);
    const payload = decodeJwt(request.data.request) as Record<string, any>;
    expect(payload).toMatchObject({
      client_id: created.client_id,
      response_mode: 'dc_api.jwt',
      expected_origins: origins,
      nonce: created.nonce,
    });
    expect(payload.state).toBeUndefined();
    expect(payload.response_uri).toBeUndefined();
    const encJwk = payload.client_metadata.jwks.keys[0] as JWK;
    const vp = await sdJwtFor(created.nonce, 'origin:https://shop.example');
    const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ vp_token: { degree: [vp] } })))
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: encJwk.kid })
      .encrypt(await importJWK(encJwk, 'ECDH-ES'));
    const clear = await respond(created, { origin: 'https://shop.example', data: { vp_token: { degree: [vp] } } });
    expect(clear.status).toBe(400);
    await respond(created, { origin: 'https://shop.example', data: { response: jwe } });
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc).toMatchObject({ enc: 'A128GCM', origin: 'https://shop.example' });
  });

  it('a wallet error in data is recorded; bad creation input and unknown ids are refused', async () => {
    const created = await create({ response_mode: 'dc_api', dcql_query: degree });
    await respond(created, { origin, data: { error: 'access_denied' } });
    expect(await result(created)).toMatchObject({ status: 'wallet_error', wallet_error: { error: 'access_denied' } });
    for (const body of [
      { response_mode: 'dc_api', client_id_prefix: 'x509_hash' },
      { response_mode: 'dc_api', expected_origins: ['javascript:alert(1)'] },
      { response_mode: 'dc_api', expected_origins: ['https://shop.example/path'] },
      { response_mode: 'dc_api.jwt', client_id_prefix: 'redirect_uri' },
      { response_mode: 'direct_post', expected_origins: [origin] },
    ]) {
      const refused = await post('/oid4vp/request/create', json(body));
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toBe('invalid_request');
    }
    const unknown = await post(
      `/oid4vp/dc-api/${created.request_id}.AAAAAAAAAAAAAAAAAAAAAA/response`,
      json({ origin, data: {} }),
    );
    expect(unknown.status).toBe(404);
    const byValue = await create({ dcql_query: degree });
    expect((await post(`/oid4vp/dc-api/${byValue.transaction_id}`, { method: 'GET' })).status).toBe(404);
  });

  it('the page: the request and its digital argument, as HTML and as markdown', async () => {
    const created = await create({ response_mode: 'dc_api', dcql_query: degree });
    const html = await (await fetch(created.dc_api_page, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('data-dc-api');
    expect(html).toContain('openid4vp-v1-unsigned');
    const markdown = await (await fetch(created.dc_api_page, { headers: { accept: 'text/markdown' } })).text();
    expect(markdown).toContain('# Present with the Digital Credentials API');
    expect(markdown).toContain(created.dc_api_response_uri);
  });
});
