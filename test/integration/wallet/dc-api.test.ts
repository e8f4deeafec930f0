import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 47: the wallet harness as a headless platform wallet of the Digital Credentials API, against our verifier.
let main: TestServer;
let wallet: TestWallet;
let origin: string;
beforeAll(async () => {
  main = await startMainServer();
  origin = new URL(main.url).origin;
  const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  const verifierCa = await (await fetch(`${main.url}/oid4vp/ca.pem`)).text();
  wallet = await startWalletServer({
    clock: main.clock,
    env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca, WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM: verifierCa },
  });
});
afterAll(async () => {
  await wallet.close();
  await main.close();
});

let n = 0;
const session = () => `it-dc-${++n}`;
const present = async (s: string, body: unknown) => {
  const res = await fetch(`${wallet.url}/api/dc-api/present`, {
    method: 'POST',
    headers: { 'x-wallet-session': s, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const create = async (body: Record<string, unknown>) => {
  const created = await exchange(main.url, '/oid4vp/request/create', json(body));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
};
const hand = (created: any, body: unknown) =>
  exchange(main.url, new URL(created.dc_api_response_uri).pathname, json(body));
const result = async (created: any) =>
  (await exchange(main.url, new URL(created.result_uri).pathname, { method: 'GET' })).body;
const degree = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };

describe('the wallet harness over the Digital Credentials API', () => {
  it('dc_api with an SD-JWT VC: {protocol, data} out, posted with the origin, verified (KB-JWT aud origin:<origin>)', async () => {
    const created = await create({ response_mode: 'dc_api', dcql_query: degree });
    const answer = await present(session(), { origin, requests: created.digital.requests });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 400)).toBe(200);
    expect(answer.body).toMatchObject({
      protocol: 'openid4vp-v1-unsigned',
      origin,
      data: { vp_token: { degree: [expect.any(String)] } },
    });
    const kb = answer.body.data.vp_token.degree[0].split('~').pop();
    expect(decodeJwt(kb).aud).toBe(`origin:${origin}`);
    expect((await hand(created, { origin, data: answer.body.data })).status).toBe(200);
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.origin).toBe(origin);
  });

  it('dc_api.jwt with the mDL: a signed request, an encrypted answer, the DC API handover', async () => {
    const created = await create({ response_mode: 'dc_api.jwt', encrypted_response_enc_values_supported: ['A256GCM'] });
    const answer = await present(session(), { origin, requests: created.digital.requests });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 400)).toBe(200);
    expect(answer.body).toMatchObject({
      protocol: 'openid4vp-v1-signed',
      enc: 'A256GCM',
      data: { response: expect.any(String) },
    });
    await hand(created, { origin, data: answer.body.data });
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.enc).toBe('A256GCM');
  });

  it('a signed request whose expected_origins lacks the origin is refused; so is an unknown protocol', async () => {
    const created = await create({
      response_mode: 'dc_api.jwt',
      dcql_query: degree,
      expected_origins: ['https://shop.example'],
    });
    const refused = await present(session(), { origin, requests: created.digital.requests });
    expect(refused.status).toBe(400);
    expect(refused.body.error_description).toMatch(/expected_origins/);
    const unknown = await present(session(), { origin, requests: [{ protocol: 'org-iso-mdoc', data: {} }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error_description).toMatch(/openid4vp-v1-unsigned/);
    const notOrigin = await present(session(), { origin: `${origin}/page`, requests: created.digital.requests });
    expect(notOrigin.status).toBe(400);
  });

  it('an origin the wallet does not trust needs approve_external_trust', async () => {
    const s = session();
    await fetch(`${wallet.url}/api/issue`, {
      method: 'POST',
      headers: { 'x-wallet-session': s, 'content-type': 'application/json' },
      body: JSON.stringify({ credential_configuration_id: 'UniversityDegreeCredential' }),
    });
    const created = await create({
      response_mode: 'dc_api',
      dcql_query: degree,
      expected_origins: ['https://shop.example'],
    });
    const refused = await present(s, { origin: 'https://shop.example', requests: created.digital.requests });
    expect(refused.body.error).toBe('external_approval_required');
    const approved = await present(s, {
      origin: 'https://shop.example',
      requests: created.digital.requests,
      approve_external_trust: true,
    });
    expect(approved.status).toBe(200);
    await hand(created, { origin: 'https://shop.example', data: approved.body.data });
    expect((await result(created)).status).toBe('verified');
  });

  it('transaction data on an mDL over dc_api.jwt: hashes device-signed, checked by the verifier', async () => {
    const created = await create({
      response_mode: 'dc_api.jwt',
      transaction_data: [
        {
          type: 'urn:portico:transaction-data:payment-confirmation',
          credential_ids: ['mdl'],
          amount: '19.99',
          currency: 'EUR',
          payee: 'Mobile Shop',
        },
      ],
    });
    const answer = await present(session(), { origin, requests: created.digital.requests });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
    await hand(created, { origin, data: answer.body.data });
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.checks).toContainEqual({ check: 'transaction_data', verdict: 'passed' });
  });

  it('transaction data over the DC API: bound by hashes, checked by the verifier', async () => {
    const created = await create({
      response_mode: 'dc_api',
      dcql_query: degree,
      transaction_data: [
        {
          type: 'urn:portico:transaction-data:document-signing',
          credential_ids: ['degree'],
          document_name: 'lease.pdf',
          document_digest: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
        },
      ],
    });
    const answer = await present(session(), { origin, requests: created.digital.requests });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
    await hand(created, { origin, data: answer.body.data });
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.checks).toContainEqual({ check: 'transaction_data', verdict: 'passed' });
  });
});
