import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueFromOurIssuer, presentSdJwt, type HolderKey } from '../../support/holder.ts';
import {
  createDeviceResponse,
  oid4vpSessionTranscript,
  parseIssuerSigned,
} from '../../../services/credentials/mdoc/index.ts';

// Issue 47: transaction data (OpenID4VP 1.0 §8.4, Appendix B.3.3) at the verifier, judged by its result.
let server: TestServer;
let holder: HolderKey;
let sdJwt: string;
const nowS = () => Math.floor(server.clock.now() / 1000);
beforeAll(async () => {
  server = await startMainServer();
  holder = await holderKey();
  sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS())) as string;
});
afterAll(async () => {
  await server.close();
});

const PAYMENT = 'urn:portico:transaction-data:payment-confirmation';
const SIGNING = 'urn:portico:transaction-data:document-signing';
const payment = (ids = ['degree']) => ({
  type: PAYMENT,
  credential_ids: ids,
  amount: '42.50',
  currency: 'EUR',
  payee: 'Demo Shop',
});
const signing = {
  type: SIGNING,
  credential_ids: ['degree'],
  document_name: 'contract.pdf',
  document_digest: createHash('sha256').update('the contract').digest('base64url'),
};
const query = (ids = ['degree']) => ({
  credentials: ids.map((id) => ({ id, format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] })),
});
const hashOf = (encoded: string, alg = 'sha256') => createHash(alg).update(encoded).digest('base64url');
const post = (path: string, init: RequestInit) => exchange(server.url, path, init);

async function create(body: Record<string, unknown>) {
  const created = await post('/oid4vp/request/create', json(body));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
async function answerWith(created: any, kbClaimsByQuery: Record<string, Record<string, unknown> | undefined>) {
  const vpToken: Record<string, string[]> = {};
  for (const [queryId, kbClaims] of Object.entries(kbClaimsByQuery))
    vpToken[queryId] = [
      await presentSdJwt(
        sdJwt,
        holder,
        { clientId: created.client_id, nonce: created.nonce, responseUri: created.response_uri, nowS: nowS() },
        'all',
        kbClaims,
      ),
    ];
  const answered = await post('/oid4vp/response', form({ vp_token: JSON.stringify(vpToken), state: created.state }));
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  return (await post(`/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;
}
const transactionCheck = (doc: any) => doc.checks.find((c: any) => c.check === 'transaction_data');

describe('transaction data at the verifier', () => {
  it('the request carries each entry base64url-encoded, in the answer and in the by-value URI', async () => {
    const created = await create({ dcql_query: query(), transaction_data: [payment(), signing] });
    expect(created.transaction_data).toHaveLength(2);
    const decoded = created.transaction_data.map((e: string) => JSON.parse(Buffer.from(e, 'base64url').toString()));
    expect(decoded).toEqual([payment(), signing]);
    const uri = new URL(created.authorization_request_uri);
    expect(JSON.parse(uri.searchParams.get('transaction_data')!)).toEqual(created.transaction_data);
  });

  it('the request object (signed, by reference) carries it too', async () => {
    const created = await create({ client_id_prefix: 'x509_hash', dcql_query: query(), transaction_data: [payment()] });
    const jwt = await (await fetch(created.request_uri)).text();
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
    expect(payload.transaction_data).toEqual(created.transaction_data);
  });

  it('hashes of both entries in the KB-JWT: verified, the check passed', async () => {
    const created = await create({ dcql_query: query(), transaction_data: [payment(), signing] });
    const doc = await answerWith(created, {
      degree: { transaction_data_hashes: created.transaction_data.map((e: string) => hashOf(e)) },
    });
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(transactionCheck(doc)).toEqual({ check: 'transaction_data', verdict: 'passed' });
  });

  it('a missing hash: rejected by the transaction_data check', async () => {
    const created = await create({ dcql_query: query(), transaction_data: [payment(), signing] });
    const doc = await answerWith(created, {
      degree: { transaction_data_hashes: [hashOf(created.transaction_data[0])] },
    });
    expect(doc.status).toBe('rejected');
    expect(doc.reasons).toEqual([
      expect.objectContaining({
        check: 'transaction_data',
        reason: expect.stringMatching(/transaction_data\[1\].*bound by no presentation/),
      }),
    ]);
    const none = await create({ dcql_query: query(), transaction_data: [payment()] });
    expect((await answerWith(none, { degree: undefined })).reasons[0].check).toBe('transaction_data');
  });

  it('an altered entry (a hash over other bytes) and an extra hash: rejected', async () => {
    const created = await create({ dcql_query: query(), transaction_data: [payment()] });
    const altered = Buffer.from(JSON.stringify({ ...payment(), amount: '4250.00' })).toString('base64url');
    const doc = await answerWith(created, { degree: { transaction_data_hashes: [hashOf(altered)] } });
    expect(doc.reasons[0]).toMatchObject({
      check: 'transaction_data',
      reason: expect.stringMatching(/matches no transaction/),
    });
    const extra = await create({ dcql_query: query(), transaction_data: [payment()] });
    const withExtra = await answerWith(extra, {
      degree: { transaction_data_hashes: [hashOf(extra.transaction_data[0]), hashOf(altered)] },
    });
    expect(withExtra.reasons[0].check).toBe('transaction_data');
    const plain = await create({ dcql_query: query() });
    const unasked = await answerWith(plain, { degree: { transaction_data_hashes: [hashOf(altered)] } });
    expect(unasked.reasons[0].check).toBe('transaction_data');
  });

  it('a transaction bound by a credential query it does not name: rejected', async () => {
    const created = await create({ dcql_query: query(['degree', 'other']), transaction_data: [payment(['degree'])] });
    const doc = await answerWith(created, {
      degree: undefined,
      other: { transaction_data_hashes: [hashOf(created.transaction_data[0])] },
    });
    expect(doc.reasons[0]).toMatchObject({ check: 'transaction_data', reason: expect.stringMatching(/does not name/) });
  });

  it('hash algorithms: an allowed one named is taken; unnamed when the entry named them, or not allowed, is refused', async () => {
    const entry = { ...payment(), transaction_data_hashes_alg: ['sha-512'] };
    const created = await create({ dcql_query: query(), transaction_data: [entry] });
    const encoded = created.transaction_data[0];
    const ok = await answerWith(created, {
      degree: { transaction_data_hashes: [hashOf(encoded, 'sha512')], transaction_data_hashes_alg: 'sha-512' },
    });
    expect(ok.status, JSON.stringify(ok.reasons)).toBe('verified');
    const unnamed = await create({ dcql_query: query(), transaction_data: [entry] });
    const doc = await answerWith(unnamed, {
      degree: { transaction_data_hashes: [hashOf(unnamed.transaction_data[0])] },
    });
    expect(doc.reasons[0].check).toBe('transaction_data');
  });

  it('creation refuses what it could never check', async () => {
    const refusal = async (body: Record<string, unknown>) => {
      const created = await post('/oid4vp/request/create', json(body));
      expect(created.status).toBe(400);
      expect(created.body.error).toBe('invalid_request');
      return created.body.error_description as string;
    };
    expect(await refusal({ dcql_query: query(), transaction_data: [payment(['nope'])] })).toMatch(
      /not a credential query/,
    );
    expect(
      await refusal({
        dcql_query: { credentials: [{ id: 'vc', format: 'jwt_vc_json', meta: { type_values: [['X']] } }] },
        transaction_data: [payment(['vc'])],
      }),
    ).toMatch(/dc\+sd-jwt or mso_mdoc/);
    expect(await refusal({ dcql_query: query(), transaction_data: [{ ...payment(), tip: '1' }] })).toMatch(
      /not one of this type/,
    );
    expect(await refusal({ dcql_query: query(), transaction_data: [{ ...payment(), amount: 42.5 }] })).toMatch(
      /amount/,
    );
    expect(
      await refusal({
        dcql_query: query(),
        transaction_data: [{ ...payment(), transaction_data_hashes_alg: ['md5'] }],
      }),
    ).toMatch(/sha-256/);
    expect(await refusal({ dcql_query: query(), transaction_data: [] })).toMatch(/transaction_data/);
  });

  it('an mdoc binds its transactions in device-signed elements the MSO authorizes; without them it is refused', async () => {
    const mdl = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS())) as string;
    const answer = async (created: any, deviceNameSpaces?: Record<string, Record<string, unknown>>) => {
      const transcript = await oid4vpSessionTranscript({
        clientId: created.client_id,
        nonce: created.nonce,
        responseUri: created.response_uri,
      });
      const response = createDeviceResponse({
        issuerSigned: parseIssuerSigned(Buffer.from(mdl, 'base64url')),
        disclose: 'all',
        deviceKey: { privateKey: holder.privateKey },
        sessionTranscript: transcript,
        ...(deviceNameSpaces ? { deviceNameSpaces } : {}),
      });
      await post(
        '/oid4vp/response',
        form({
          vp_token: JSON.stringify({ mdl: [Buffer.from(response).toString('base64url')] }),
          state: created.state,
        }),
      );
      return (await post(`/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;
    };
    const created = await create({ transaction_data: [payment(['mdl'])] });
    const bound = await answer(created, {
      'net.openid.openid4vc': { transaction_data_hashes: [hashOf(created.transaction_data[0])] },
    });
    expect(bound.status, JSON.stringify(bound.reasons)).toBe('verified');
    expect(bound.checks).toContainEqual({ check: 'transaction_data', verdict: 'passed' });
    const unbound = await answer(await create({ transaction_data: [payment(['mdl'])] }));
    expect(unbound.reasons[0].check).toBe('transaction_data');
    // An element the MSO does not authorize the device to sign is refused by the device check.
    const unauthorized = await answer(await create({ transaction_data: [payment(['mdl'])] }), {
      'org.iso.18013.5.1': { family_name: 'Forged' },
    });
    expect(unauthorized.reasons[0]).toMatchObject({
      check: 'device_authentication',
      reason: expect.stringMatching(/keyAuthorizations/),
    });
  });

  it('an unknown type is sent as given, and its hash checked the same way', async () => {
    const created = await create({
      dcql_query: query(),
      transaction_data: [{ type: 'https://bank.example/td/transfer', credential_ids: ['degree'], iban: 'X' }],
    });
    const doc = await answerWith(created, {
      degree: { transaction_data_hashes: [hashOf(created.transaction_data[0])] },
    });
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
  });
});
