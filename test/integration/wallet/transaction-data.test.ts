import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 47: the wallet harness resolves transaction data, shows it, and binds it by hashes (OpenID4VP 1.0 §8.4).
let main: TestServer;
let wallet: TestWallet;
beforeAll(async () => {
  main = await startMainServer();
  const verifierCa = await (await fetch(`${main.url}/oid4vp/ca.pem`)).text();
  wallet = await startWalletServer({
    clock: main.clock,
    env: { BASE_URL: main.url, WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM: verifierCa },
  });
});
afterAll(async () => {
  await wallet.close();
  await main.close();
});

let n = 0;
const session = () => `it-td-${++n}`;
const call = async (s: string, path: string, body?: unknown) => {
  const res = await fetch(`${wallet.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-wallet-session': s, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, any> };
};
const degree = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };
const payment = {
  type: 'urn:portico:transaction-data:payment-confirmation',
  credential_ids: ['degree'],
  amount: '42.50',
  currency: 'EUR',
  payee: 'Demo Shop',
};
const create = async (body: Record<string, unknown>) =>
  (await exchange(main.url, '/oid4vp/request/create', json({ dcql_query: degree, ...body }))).body;
const result = async (created: Record<string, any>) =>
  (await exchange(main.url, `/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;

describe('transaction data at the wallet harness', () => {
  it('/api/resolve lists each transaction in words; /submit binds its hash and the verifier verifies it', async () => {
    const s = session();
    const created = await create({ client_id_prefix: 'x509_hash', transaction_data: [payment] });
    const resolved = await call(s, '/api/resolve', { uri: created.authorization_request_uri });
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.body.transaction_data).toEqual([
      expect.objectContaining({
        index: 0,
        type: payment.type,
        known_type: true,
        credential_ids: ['degree'],
        summary: 'Pay 42.50 EUR to Demo Shop',
      }),
    ]);
    const submitted = await call(s, '/submit', { uri: created.authorization_request_uri });
    expect(submitted.status, submitted.text).toBe(200);
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.checks).toContainEqual({ check: 'transaction_data', verdict: 'passed' });
  });

  it('an unknown type: shown raw, refused without approval (403), verified with it', async () => {
    const s = session();
    await call(s, '/api/issue', { credential_configuration_id: 'UniversityDegreeCredential' });
    const unknown = { type: 'https://bank.example/td/transfer', credential_ids: ['degree'], iban: 'DE00 1234' };
    const created = await create({ transaction_data: [unknown] });
    const resolved = await call(s, '/api/resolve', { uri: created.authorization_request_uri });
    expect(resolved.body.transaction_data[0]).toMatchObject({ known_type: false, fields: { iban: 'DE00 1234' } });
    const refused = await call(s, '/api/present', { request_id: resolved.body.request_id });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('transaction_approval_required');
    const approved = await call(s, '/api/present', {
      request_id: resolved.body.request_id,
      approve_unknown_transaction_types: true,
    });
    expect(approved.status, approved.text).toBe(200);
    expect((await result(created)).status).toBe('verified');
  });

  it('malformed transaction data is invalid_transaction_data, naming the rule', async () => {
    const s = session();
    // A by-value request the test writes itself: the verifier would never create these.
    const bad = (entries: unknown[]) => {
      const uri = new URL('openid4vp://');
      uri.searchParams.set('client_id', `redirect_uri:${main.url}/oid4vp/response`);
      uri.searchParams.set('response_type', 'vp_token');
      uri.searchParams.set('response_mode', 'direct_post');
      uri.searchParams.set('response_uri', `${main.url}/oid4vp/response`);
      uri.searchParams.set('nonce', 'n');
      uri.searchParams.set('dcql_query', JSON.stringify(degree));
      uri.searchParams.set(
        'transaction_data',
        JSON.stringify(entries.map((e) => Buffer.from(JSON.stringify(e)).toString('base64url'))),
      );
      return call(s, '/api/resolve', { uri: uri.toString() });
    };
    for (const [entry, rule] of [
      [{ ...payment, credential_ids: ['nope'] }, /not a credential query/],
      [{ ...payment, tip: '2' }, /not one of this type/],
      [{ ...payment, currency: 'euro' }, /currency/],
      [{ credential_ids: ['degree'] }, /type/],
    ] as const) {
      const answer = await bad([entry]);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        error: 'invalid_transaction_data',
        error_description: expect.stringMatching(rule),
      });
    }
  });

  it('entries that share no hash algorithm cannot be bound by one KB-JWT: refused before anything is sent', async () => {
    const s = session();
    const created = await create({
      transaction_data: [payment, { ...payment, amount: '1.00', transaction_data_hashes_alg: ['sha-384'] }],
    });
    const submitted = await call(s, '/submit', { uri: created.authorization_request_uri });
    expect(submitted.status).toBe(400);
    expect(submitted.body).toMatchObject({
      error: 'invalid_transaction_data',
      error_description: expect.stringMatching(/share no hash algorithm/),
    });
    expect((await result(created)).status).toBe('created');
  });

  it('the consent page shows the transaction in words; declining sends access_denied', async () => {
    const s = session();
    await call(s, '/api/issue', { credential_configuration_id: 'UniversityDegreeCredential' });
    const created = await create({ transaction_data: [payment] });
    const resolved = await call(s, '/api/resolve', { uri: created.authorization_request_uri });
    const page = await fetch(`${wallet.url}/consent/${resolved.body.request_id}`, {
      headers: { 'x-wallet-session': s, accept: 'text/html' },
    });
    const html = await page.text();
    expect(html).toContain('Transactions you authorize by presenting');
    // The session page links the pending request's QR code: the verifier's link, to carry to a phone.
    const home = await (
      await fetch(`${wallet.url}/`, { headers: { 'x-wallet-session': s, accept: 'text/html' } })
    ).text();
    expect(home).toContain(`href="/consent/${resolved.body.request_id}/qr"`);
    const qr = await (
      await fetch(`${wallet.url}/consent/${resolved.body.request_id}/qr`, { headers: { 'x-wallet-session': s } })
    ).text();
    expect(qr).toContain('<svg role="img"');
    expect(qr).toContain(created.authorization_request_uri.slice(0, 40).replace(/&/g, '&amp;'));
    expect(html).toContain('Pay 42.50 EUR to Demo Shop');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1];
    const declined = await fetch(`${wallet.url}/consent/${resolved.body.request_id}`, {
      method: 'POST',
      headers: { 'x-wallet-session': s, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, decision: 'decline' }),
    });
    expect(declined.status).toBe(200);
    const doc = await result(created);
    expect(doc).toMatchObject({ status: 'wallet_error', wallet_error: { error: 'access_denied' } });
  });
});
