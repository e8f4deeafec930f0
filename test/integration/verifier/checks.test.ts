import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueSdJwtVc } from '../../../services/credentials/sd-jwt/issue.ts';
import { createDocumentSigner, createIacaRoot, issueMdoc } from '../../../services/credentials/mdoc/index.ts';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import {
  holderKey,
  issueFromOurIssuer,
  presentMdoc,
  presentSdJwt,
  type Answering,
  type HolderKey,
} from '../../support/holder.ts';

// Issue 16: one negative per named check of the verifier, and the request lifecycle (decisions section 9).
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

const post = (path: string, init: RequestInit) => exchange(server.url, path, init);
const degreeQuery = () => ({ credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] });
const create = async (body: Record<string, unknown> = { dcql_query: degreeQuery() }) => {
  const created = await post('/oid4vp/request/create', json(body));
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
const answer = (created: any, vpToken: unknown) =>
  post(
    '/oid4vp/response',
    form({ vp_token: typeof vpToken === 'string' ? vpToken : JSON.stringify(vpToken), state: created.state }),
  );
const result = async (created: any) => (await post(`/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;
/** Answers with `vpToken` and returns the one reason of the rejection. */
async function rejection(created: any, vpToken: unknown) {
  const answered = await answer(created, vpToken);
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  const doc = await result(created);
  expect(doc.status).toBe('rejected');
  return doc.reasons as Array<{ credential_query_id?: string; check: string; reason: string }>;
}

describe('OID4VP verifier: every named check fails for its reason', () => {
  it('vp_token: not JSON, an array, an unknown query id, an empty array, two items without multiple', async () => {
    expect((await rejection(await create(), 'not json'))[0].check).toBe('vp_token');
    expect((await rejection(await create(), [1]))[0].check).toBe('vp_token');
    expect((await rejection(await create(), { other: ['x'] }))[0]).toMatchObject({ check: 'vp_token' });
    expect((await rejection(await create(), { degree: [] }))[0]).toMatchObject({
      credential_query_id: 'degree',
      check: 'vp_token',
    });
    const c = await create();
    const vp = await presentSdJwt(sdJwt, holder, to(c));
    expect((await rejection(c, { degree: [vp, vp] }))[0]).toMatchObject({
      credential_query_id: 'degree',
      check: 'vp_token',
      reason: expect.stringContaining('multiple'),
    });
  });

  it('nonce, aud, kb_freshness, sd_hash of the KB-JWT', async () => {
    let c = await create();
    expect(
      (await rejection(c, { degree: [await presentSdJwt(sdJwt, holder, to(c, { nonce: 'another-nonce' }))] }))[0],
    ).toMatchObject({ check: 'nonce' });
    // Issue 31: the result lists the checks that held before the one that failed, and nothing after it.
    const listed = ((await result(c)).checks as Array<{ check: string; verdict: string }>).filter(
      (x) => x.check !== 'vp_token' && x.check !== 'dcql',
    );
    expect(listed.at(-1)).toEqual({
      credential_query_id: 'degree',
      presentation: 0,
      check: 'nonce',
      verdict: 'failed',
    });
    expect(listed.slice(0, -1).every((x) => x.verdict === 'passed')).toBe(true);
    expect(listed.map((x) => x.check)).toEqual(expect.arrayContaining(['trust', 'issuer_signature', 'kb_signature']));
    expect(listed.map((x) => x.check)).not.toContain('aud');
    c = await create();
    expect(
      (
        await rejection(c, {
          degree: [await presentSdJwt(sdJwt, holder, to(c, { clientId: 'redirect_uri:https://elsewhere.example/cb' }))],
        })
      )[0],
    ).toMatchObject({ check: 'aud' });
    c = await create();
    expect(
      (await rejection(c, { degree: [await presentSdJwt(sdJwt, holder, to(c, { nowS: nowS() - 3600 }))] }))[0],
    ).toMatchObject({ check: 'kb_freshness' });
    c = await create();
    const vp = await presentSdJwt(sdJwt, holder, to(c), ['degree', 'family_name']);
    const parts = vp.split('~');
    parts.splice(1, 1); // drop a disclosure after the KB-JWT was made over all of them
    expect((await rejection(c, { degree: [parts.join('~')] }))[0]).toMatchObject({ check: 'sd_hash' });
  });

  it('issuer_signature (our issuer named, signature forged) and trust (another issuer)', async () => {
    let c = await create();
    const vp = await presentSdJwt(sdJwt, holder, to(c));
    const [jwt, ...rest] = vp.split('~');
    const [h, p, s] = jwt.split('.');
    const forged = `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect((await rejection(c, { degree: [[forged, ...rest].join('~')] }))[0]).toMatchObject({
      check: 'issuer_signature',
    });
    c = await create();
    const stranger = await holderKey();
    const theirs = await issueSdJwtVc({
      issuer: { alg: 'ES256', privateKey: stranger.privateKey, kid: 'k', iss: 'https://issuer.example' },
      vct: 'urn:x',
      claims: { degree: 'Forged' },
      disclosable: [['degree']],
      holderJwk: holder.jwk,
      now: nowS(),
    });
    expect((await rejection(c, { degree: [await presentSdJwt(theirs.sdJwt, holder, to(c))] }))[0]).toMatchObject({
      check: 'trust',
    });
  });

  it('mdoc: chain (another IACA), digest (tampered element), device_authentication (other request)', async () => {
    let c = await create({});
    const ms = server.clock.now();
    const iaca = await createIacaRoot({
      notBefore: new Date(ms - 86_400_000),
      notAfter: new Date(ms + 86_400_000 * 30),
    });
    const ds = await createDocumentSigner({
      iaca,
      notBefore: new Date(ms - 86_400_000),
      notAfter: new Date(ms + 86_400_000 * 30),
    });
    const foreign = issueMdoc({
      docType: 'org.iso.18013.5.1.mDL',
      namespaces: { 'org.iso.18013.5.1': { family_name: 'X', document_number: 'Y' } },
      deviceKey: holder.jwk,
      signer: { privateKey: ds.privateKey, x5chain: [ds.certificate] },
      signed: nowS() - 60,
      validFrom: nowS() - 60,
      validUntil: nowS() + 3600,
    });
    expect(
      (
        await rejection(c, {
          mdl: [await presentMdoc(Buffer.from(foreign.encoded).toString('base64url'), holder, to(c))],
        })
      )[0],
    ).toMatchObject({ credential_query_id: 'mdl', check: 'chain' });

    c = await create({});
    const good = await presentMdoc(mdl, holder, to(c), ['family_name', 'document_number']);
    const bytes = Buffer.from(good, 'base64url');
    const at = bytes.indexOf(Buffer.from('PD-ALICE-0001'));
    bytes[at + 3] = 'B'.charCodeAt(0); // PD-BLICE-0001: the item no longer matches its digest
    expect((await rejection(c, { mdl: [bytes.toString('base64url')] }))[0]).toMatchObject({ check: 'digest' });

    c = await create({});
    const other = await create({});
    expect(
      (await rejection(c, { mdl: [await presentMdoc(mdl, holder, to(other), ['family_name', 'document_number'])] }))[0],
    ).toMatchObject({ check: 'device_authentication' });
  });

  it('validity: an expired mdoc from a root added by MDOC_IACA_ROOT_PEM (which also shows the variable is honoured)', async () => {
    const ms = server.clock.now();
    const iaca = await createIacaRoot({
      notBefore: new Date(ms - 86_400_000),
      notAfter: new Date(ms + 86_400_000 * 30),
    });
    const ds = await createDocumentSigner({
      iaca,
      notBefore: new Date(ms - 86_400_000),
      notAfter: new Date(ms + 86_400_000 * 30),
    });
    const expired = issueMdoc({
      docType: 'org.iso.18013.5.1.mDL',
      namespaces: { 'org.iso.18013.5.1': { family_name: 'X', document_number: 'Y' } },
      deviceKey: holder.jwk,
      signer: { privateKey: ds.privateKey, x5chain: [ds.certificate] },
      signed: nowS() - 7200,
      validFrom: nowS() - 7200,
      validUntil: nowS() - 3600,
    });
    const restarted = await startMainServer({ env: { MDOC_IACA_ROOT_PEM: iaca.pem }, clock: server.clock });
    try {
      const created = (await exchange(restarted.url, '/oid4vp/request/create', json({}))).body;
      const vp = await presentMdoc(Buffer.from(expired.encoded).toString('base64url'), holder, {
        clientId: created.client_id,
        nonce: created.nonce,
        responseUri: created.response_uri,
        nowS: nowS(),
      });
      expect(
        (
          await exchange(
            restarted.url,
            '/oid4vp/response',
            form({ vp_token: JSON.stringify({ mdl: [vp] }), state: created.state }),
          )
        ).status,
      ).toBe(200);
      const doc = (await exchange(restarted.url, `/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;
      expect(doc.reasons[0]).toMatchObject({ check: 'validity' });
    } finally {
      await restarted.close();
    }
  });

  it('dcql: a verified credential that does not answer its query, and a missing required query', async () => {
    let c = await create({
      dcql_query: {
        credentials: [
          { id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'], values: ['Doctor of Philosophy'] }] },
        ],
      },
    });
    expect((await rejection(c, { degree: [await presentSdJwt(sdJwt, holder, to(c))] }))[0]).toMatchObject({
      credential_query_id: 'degree',
      check: 'dcql',
    });
    c = await create({
      dcql_query: {
        credentials: [
          { id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] },
          { id: 'mdl', format: 'mso_mdoc', claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }] },
        ],
      },
    });
    const reasons = await rejection(c, { degree: [await presentSdJwt(sdJwt, holder, to(c))] });
    expect(reasons).toEqual([{ credential_query_id: 'mdl', check: 'dcql', reason: expect.any(String) }]);
  });

  it('credential_sets and claim_sets: an optional set may stay unanswered; a required one may not', async () => {
    const query = {
      credentials: [
        {
          id: 'degree',
          format: 'dc+sd-jwt',
          claims: [
            { id: 'd', path: ['degree'] },
            { id: 'y', path: ['graduation_year'] },
            { id: 'f', path: ['family_name'] },
          ],
          claim_sets: [['d', 'y'], ['f']],
        },
        { id: 'mdl', format: 'mso_mdoc', claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }] },
      ],
      credential_sets: [{ options: [['mdl'], ['degree']] }, { options: [['mdl']], required: false }],
    };
    let c = await create({ dcql_query: query });
    // Only family_name disclosed: the second claim set is what matches.
    expect(await answer(c, { degree: [await presentSdJwt(sdJwt, holder, to(c), ['family_name'])] })).toMatchObject({
      status: 200,
    });
    expect(await result(c)).toMatchObject({ status: 'verified', reasons: [] });
    c = await create({ dcql_query: { ...query, credential_sets: [{ options: [['mdl']] }] } });
    expect(
      (await rejection(c, { degree: [await presentSdJwt(sdJwt, holder, to(c), ['family_name'])] }))[0],
    ).toMatchObject({ check: 'dcql', reason: expect.stringContaining('credential_sets[0]') });
  });
});

describe('OID4VP verifier: request lifecycle', () => {
  it('creation errors are 400 invalid_request', async () => {
    for (const body of [
      { client_id_prefix: 'pre-registered' },
      { response_mode: 'fragment' },
      { request_uri_method: 'put' },
      { client_id_prefix: 'x509_san_dns' }, // BASE_URL is an IP address here
      { profile: 'haip', client_id_prefix: 'redirect_uri' },
      { profile: 'haip', response_mode: 'direct_post' },
      { profile: 'other' },
      { dcql_query: { credentials: [] } },
      { dcql_query: { credentials: [{ id: 'a b', format: 'dc+sd-jwt' }] } },
      { dcql_query: { credentials: [{ id: 'x', format: 'ac_vp' }] } },
      { encrypted_response_enc_values_supported: ['A192CBC-HS384'] },
      { unknown_member: true },
    ]) {
      const r = await post('/oid4vp/request/create', json(body));
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error, JSON.stringify(body)).toBe('invalid_request');
      expect(typeof r.body.error_description).toBe('string');
    }
  });

  // The methods each request object allows are held in test/integration/specification/measured-defects.test.ts.
  it('request objects: unknown 404, fetched twice, answered or expired 400 invalid_request_uri; wallet_nonce echoed', async () => {
    expect(await post('/oid4vp/request/AAAAAAAAAAAAAAAA', { method: 'GET' })).toMatchObject({
      status: 404,
      body: { error: 'invalid_request_uri' },
    });
    const c = await create({ client_id_prefix: 'x509_hash', request_uri_method: 'post', dcql_query: degreeQuery() });
    const first = await fetch(c.request_uri, form({ wallet_nonce: 'wn-123' }));
    expect(first.headers.get('content-type')).toContain('application/oauth-authz-req+jwt');
    const jwt = await first.text();
    const [header, payload] = jwt
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toMatchObject({
      alg: 'ES256',
      typ: 'oauth-authz-req+jwt',
      x5c: [expect.any(String), expect.any(String)],
    });
    expect(payload).toMatchObject({
      aud: 'https://self-issued.me/v2',
      jti: c.request_id,
      wallet_nonce: 'wn-123',
      client_id: c.client_id,
      nonce: c.nonce,
      state: c.state,
      response_uri: c.response_uri,
      dcql_query: c.dcql_query,
    });
    expect((await fetch(c.request_uri, form({}))).status).toBe(200);
    expect((await result(c)).status).toBe('fetched');
    await answer(c, { degree: [await presentSdJwt(sdJwt, holder, to(c))] });
    expect(await exchange(server.url, new URL(c.request_uri).pathname, form({}))).toMatchObject({
      status: 400,
      body: { error: 'invalid_request_uri' },
    });
    const lapsing = await create({ client_id_prefix: 'x509_hash', dcql_query: degreeQuery() });
    server.clock.advance(301_000);
    expect(await post(new URL(lapsing.request_uri).pathname, { method: 'GET' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_request_uri' },
    });
    expect((await result(lapsing)).status).toBe('expired');
  });

  it('responses: unknown state, missing state, answered, expired, a wallet error', async () => {
    expect(
      await post('/oid4vp/response', form({ vp_token: '{}', state: 'AAAAAAAAAAAAAAAA.' + 'A'.repeat(43) })),
    ).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await post('/oid4vp/response', form({ vp_token: '{}' }))).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    const c = await create();
    expect(
      await post('/oid4vp/response', form({ vp_token: '{}', state: `${c.request_id}.${'B'.repeat(43)}` })),
    ).toMatchObject({ status: 400 });
    expect(
      await post(
        '/oid4vp/response',
        form({ error: 'access_denied', error_description: 'The person declined', state: c.state }),
      ),
    ).toMatchObject({ status: 200, body: {} });
    expect(await result(c)).toMatchObject({
      status: 'wallet_error',
      wallet_error: { error: 'access_denied', error_description: 'The person declined' },
      reasons: [],
    });
    expect(await answer(c, {})).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const lapsing = await create();
    server.clock.advance(300_000);
    expect(await answer(lapsing, {})).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect((await result(lapsing)).status).toBe('expired');
    expect(await post('/oid4vp/result/AAAAAAAAAAAAAAAA', { method: 'GET' })).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
  });

  it("direct_post.jwt: a plain answer, a bad JWE, the wrong enc, another request's key are refused; A256GCM when offered", async () => {
    const c = await create({
      response_mode: 'direct_post.jwt',
      encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'],
      dcql_query: degreeQuery(),
    });
    const params = new URL(c.authorization_request_uri).searchParams;
    const metadata = JSON.parse(params.get('client_metadata')!);
    expect(metadata.encrypted_response_enc_values_supported).toEqual(['A128GCM', 'A256GCM']);
    const key = metadata.jwks.keys[0] as JWK;
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES', kid: expect.any(String) });
    expect(key.d).toBeUndefined();
    const vp = await presentSdJwt(sdJwt, holder, to(c));
    expect(await answer(c, { degree: [vp] })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await post('/oid4vp/response', form({ response: 'a.b.c.d.e' }))).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    const encrypt = async (payload: unknown, enc: 'A128GCM' | 'A256GCM' | 'A192GCM', kid = key.kid) =>
      new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'ECDH-ES', enc, kid })
        .encrypt(await importJWK(key, 'ECDH-ES'));
    expect(
      await post(
        '/oid4vp/response',
        form({ response: await encrypt({ vp_token: { degree: [vp] }, state: c.state }, 'A192GCM') }),
      ),
    ).toMatchObject({ status: 400 });
    const other = await create({ response_mode: 'direct_post.jwt', dcql_query: degreeQuery() });
    const otherKid = JSON.parse(new URL(other.authorization_request_uri).searchParams.get('client_metadata')!).jwks
      .keys[0].kid;
    expect(
      await post(
        '/oid4vp/response',
        form({ response: await encrypt({ vp_token: { degree: [vp] }, state: c.state }, 'A256GCM', otherKid) }),
      ),
    ).toMatchObject({ status: 400 });
    expect((await result(c)).status).toBe('created');
    expect(
      await post(
        '/oid4vp/response',
        form({ response: await encrypt({ vp_token: { degree: [vp] }, state: c.state }, 'A256GCM') }),
      ),
    ).toMatchObject({ status: 200, body: {} });
    expect(await result(c)).toMatchObject({ status: 'verified', enc: 'A256GCM' });
    // A wallet that cannot encrypt may still answer an error in the clear (OpenID4VP 1.0 §8.3.1).
    const declined = await create({ response_mode: 'direct_post.jwt', dcql_query: degreeQuery() });
    expect(await post('/oid4vp/response', form({ error: 'access_denied', state: declined.state }))).toMatchObject({
      status: 200,
      body: {},
    });
    expect(await result(declined)).toMatchObject({ status: 'wallet_error', wallet_error: { error: 'access_denied' } });
  });

  it('HAIP: x509_hash + direct_post.jwt by default; the response returns redirect_uri with a response_code the result checks', async () => {
    const c = await create({ profile: 'haip' });
    expect(c.client_id).toMatch(/^x509_hash:[A-Za-z0-9_-]{43}$/);
    expect(c.response_mode).toBe('direct_post.jwt');
    const requestObject = await (await fetch(c.request_uri)).text();
    const payload = JSON.parse(Buffer.from(requestObject.split('.')[1], 'base64url').toString());
    const key = payload.client_metadata.jwks.keys[0] as JWK;
    const vp = await presentMdoc(mdl, holder, to(c, { encryptionJwk: key }), ['family_name', 'document_number']);
    const jwe = await new CompactEncrypt(
      new TextEncoder().encode(JSON.stringify({ vp_token: { mdl: [vp] }, state: c.state })),
    )
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: key.kid })
      .encrypt(await importJWK(key, 'ECDH-ES'));
    const answered = await post('/oid4vp/response', form({ response: jwe }));
    expect(answered.status).toBe(200);
    expect(answered.body.redirect_uri).toMatch(
      new RegExp(`^${server.url}/oid4vp/result/${c.transaction_id}\\?response_code=[A-Za-z0-9_-]{32}$`),
    );
    const redirect = new URL(answered.body.redirect_uri);
    expect(
      (await exchange(server.url, `${redirect.pathname}${redirect.search}`, { method: 'GET' })).body,
    ).toMatchObject({ status: 'verified' });
    expect((await exchange(server.url, `${redirect.pathname}?response_code=wrong`, { method: 'GET' })).status).toBe(
      400,
    );
  });
});
