import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDeviceResponse,
  dcApiSessionTranscript,
  parseIssuerSigned,
} from '../../../services/credentials/mdoc/index.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueFromOurIssuer, presentSdJwt, type HolderKey } from '../../support/holder.ts';

// Issue 47: the looking glass decodes a DC API request and answer, and checks transaction data against KB-JWT hashes.
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
const payment = {
  type: 'urn:portico:transaction-data:payment-confirmation',
  credential_ids: ['degree'],
  amount: '5.00',
  currency: 'EUR',
  payee: 'Glass Shop',
};
const create = async (body: Record<string, unknown>) =>
  (await exchange(server.url, '/oid4vp/request/create', json(body))).body as Record<string, any>;
const decode = async (body: Record<string, unknown>) => {
  const res = await exchange(server.url, '/api/lookingglass/decode/dc-api', json(body));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Record<string, any>;
};
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

describe('the looking glass on Digital Credentials API exchanges', () => {
  it('an unsigned request with transaction data and an SD-JWT VC answer: audience, nonce, transactions bound', async () => {
    const created = await create({ response_mode: 'dc_api', dcql_query: degree, transaction_data: [payment] });
    const vp = await presentSdJwt(
      sdJwt,
      holder,
      { clientId: `origin:${origin}`, nonce: created.nonce, responseUri: '', nowS: nowS() },
      'all',
      {
        transaction_data_hashes: [sha256(created.transaction_data[0])],
      },
    );
    const decoded = await decode({
      request: created.digital,
      response: { data: { vp_token: { degree: [vp] } } },
      origin,
    });
    expect(decoded.request).toMatchObject({
      protocol: 'openid4vp-v1-unsigned',
      signed: false,
      response_mode: 'dc_api',
      nonce: created.nonce,
      transaction_data: [expect.objectContaining({ summary: 'Pay 5.00 EUR to Glass Shop' })],
    });
    expect(decoded).toMatchObject({ origin, audience: `origin:${origin}`, origin_expected: null });
    expect(decoded.response.presentations[0]).toMatchObject({ aud_is_origin: true, nonce_matches: true });
    expect(decoded.transactions.verdict).toBe('bound');

    const unbound = await presentSdJwt(sdJwt, holder, {
      clientId: 'x509_hash:abc',
      nonce: 'other',
      responseUri: '',
      nowS: nowS(),
    });
    const wrong = await decode({
      request: created.digital,
      response: { data: { vp_token: { degree: [unbound] } } },
      origin,
    });
    expect(wrong.response.presentations[0]).toMatchObject({ aud_is_origin: false, nonce_matches: false });
    expect(wrong.transactions).toMatchObject({
      verdict: 'not bound',
      detail: expect.stringMatching(/bound by no presentation/),
    });
  });

  it('a signed request: its signature verdict and expected_origins; an mdoc answer: the handover and device signature', async () => {
    const created = await create({ response_mode: 'dc_api.jwt' });
    const encryptionJwk = JSON.parse(
      Buffer.from(created.digital.requests[0].data.request.split('.')[1], 'base64url').toString(),
    ).client_metadata.jwks.keys[0];
    const deviceResponse = (forOrigin: string) =>
      dcApiSessionTranscript({ origin: forOrigin, nonce: created.nonce, encryptionKey: encryptionJwk }).then((t) =>
        Buffer.from(
          createDeviceResponse({
            issuerSigned: parseIssuerSigned(Buffer.from(mdl, 'base64url')),
            disclose: 'all',
            deviceKey: { privateKey: holder.privateKey },
            sessionTranscript: t,
          }),
        ).toString('base64url'),
      );
    const decoded = await decode({
      request: created.digital,
      response: { vp_token: { mdl: [await deviceResponse(origin)] } },
      origin,
    });
    expect(decoded.request).toMatchObject({ signed: true, client_id: created.client_id, expected_origins: [origin] });
    expect(decoded.request.signature.verified).toBe(true);
    expect(decoded.origin_expected).toBe(true);
    const [mdoc] = decoded.response.presentations;
    expect(mdoc.handover).toMatchObject({ type: 'OpenID4VPDCAPIHandover', info: { origin, nonce: created.nonce } });
    expect(mdoc.handover.info.jwk_thumbprint).toMatch(/^[0-9a-f]{64}$/);
    expect(mdoc.device_signature.verified).toBe(true);

    const elsewhere = await decode({
      request: created.digital,
      response: { vp_token: { mdl: [await deviceResponse('https://evil.example')] } },
      origin,
    });
    expect(elsewhere.response.presentations[0].device_signature).toMatchObject({
      verified: false,
      check: 'device_authentication',
    });
    const otherOrigin = await decode({ request: created.digital, origin: 'https://evil.example' });
    expect(otherOrigin.origin_expected).toBe(false);
  });

  it('the page: a form that posts the exchange and shows origin, audience and transactions (no JavaScript needed)', async () => {
    const created = await create({ response_mode: 'dc_api', dcql_query: degree, transaction_data: [payment] });
    const vp = await presentSdJwt(
      sdJwt,
      holder,
      { clientId: `origin:${origin}`, nonce: created.nonce, responseUri: '', nowS: nowS() },
      'all',
      { transaction_data_hashes: [sha256(created.transaction_data[0])] },
    );
    const form = new URLSearchParams({
      dc_request: JSON.stringify(created.digital),
      dc_response: JSON.stringify({ data: { vp_token: { degree: [vp] } } }),
      dc_origin: origin,
    });
    const res = await fetch(`${server.url}/looking-glass`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/markdown' },
      body: form,
    });
    const page = await res.text();
    expect(res.status).toBe(200);
    expect(page).toContain('## Digital Credentials API exchange');
    expect(page).toContain('Transaction 0: Pay 5.00 EUR to Glass Shop');
    expect(page).toContain('is the origin: yes; nonce matches: yes');
    expect(page).toContain('Transaction data: bound');
    const empty = await (await fetch(`${server.url}/looking-glass`, { headers: { accept: 'text/html' } })).text();
    expect(empty).toContain('id="dc-api-form"');
  });

  it('an encrypted answer shows its header only; a request it cannot read is refused', async () => {
    const created = await create({ response_mode: 'dc_api.jwt' });
    const decoded = await decode({
      request: created.digital.requests[0],
      response: { data: { response: 'eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTEyOEdDTSJ9..a.b.c' } },
      origin,
    });
    expect(decoded.response.encrypted.header).toEqual({ alg: 'ECDH-ES', enc: 'A128GCM' });
    const refused = await exchange(server.url, '/api/lookingglass/decode/dc-api', json({ request: [] }));
    expect(refused.status).toBe(400);
  });
});
