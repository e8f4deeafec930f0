import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import {
  holderKey,
  issueFromOurIssuer,
  presentJwtVc,
  presentLdpVc,
  presentMdoc,
  presentSdJwt,
  type HolderKey,
} from '../../support/holder.ts';

// Issue 16: the OID4VP verifier over HTTP, answered by a holder built on our codec layer.
let server: TestServer;
let holder: HolderKey;
const credentials: Record<string, any> = {};
const nowS = () => Math.floor(server.clock.now() / 1000);
beforeAll(async () => {
  server = await startMainServer();
  holder = await holderKey();
  for (const id of [
    'UniversityDegreeCredential',
    'MobileDrivingLicenceMsoMdoc',
    'UniversityDegreeCredentialJWT',
    'UniversityDegreeCredentialLDP',
  ])
    credentials[id] = await issueFromOurIssuer(server.url, id, holder, nowS());
});
afterAll(async () => {
  await server.close();
});

const post = (path: string, init: RequestInit) => exchange(server.url, path, init);
const degreeQuery = (format = 'dc+sd-jwt', claims: string[][] = [['family_name'], ['degree']]) => ({
  credentials: [
    {
      id: 'degree',
      format,
      ...(format === 'dc+sd-jwt'
        ? { meta: { vct_values: [`${server.url}/oid4vci/credential-types/university-degree`] } }
        : {}),
      claims: claims.map((path) => ({ path })),
    },
  ],
});
const create = async (body: Record<string, unknown>) => {
  const created = await post('/oid4vp/request/create', json(body));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
};
const answering = (created: any) => ({
  clientId: created.client_id,
  nonce: created.nonce,
  responseUri: created.response_uri,
  nowS: nowS(),
});
const result = async (created: any) => (await post(`/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;

describe('OID4VP verifier: direct_post', () => {
  it('redirect_uri: an unsigned by-value request answered with an SD-JWT VC is verified; only the disclosed claims are reported', async () => {
    const created = await create({ dcql_query: degreeQuery() });
    expect(created).toMatchObject({
      client_id: `redirect_uri:${server.url}/oid4vp/response`,
      response_mode: 'direct_post',
      response_uri: `${server.url}/oid4vp/response`,
      expires_in: 300,
      result_uri: `${server.url}/oid4vp/result/${created.transaction_id}`,
    });
    expect(created.request_uri).toBeUndefined();
    const uri = new URL(created.authorization_request_uri);
    expect(uri.protocol).toBe('openid4vp:');
    expect(JSON.parse(uri.searchParams.get('dcql_query')!)).toEqual(created.dcql_query);
    expect(uri.searchParams.get('nonce')).toBe(created.nonce);
    const vp = await presentSdJwt(credentials.UniversityDegreeCredential, holder, answering(created), [
      'family_name',
      'degree',
    ]);
    const answer = await post(
      '/oid4vp/response',
      form({ vp_token: JSON.stringify({ degree: [vp] }), state: created.state }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({});
    const doc = await result(created);
    expect(doc).toMatchObject({ request_id: created.request_id, status: 'verified', reasons: [] });
    expect(doc.presentations.degree[0]).toEqual({
      format: 'dc+sd-jwt',
      issuer: `${server.url}/oid4vci`,
      claims: { family_name: expect.any(String), degree: 'Bachelor of Science' },
      // Issue 34: the credential's status as its list said.
      status: [expect.objectContaining({ type: 'status_list', status: 'VALID', uri: expect.any(String) })],
    });
    // Issue 31: every check the verifier ran, passed ones included, in order.
    const checks = doc.checks.map((c: any) => `${c.credential_query_id ?? '-'}:${c.check}:${c.verdict}`);
    expect(checks[0]).toBe('-:vp_token:passed');
    expect(checks.at(-1)).toBe('-:dcql:passed');
    for (const check of [
      'trust',
      'typ',
      'issuer_signature',
      'vct',
      'validity',
      'kb_signature',
      'sd_hash',
      'nonce',
      'aud',
      'status_list_typ',
      'status_list_signature',
      'status_list_sub',
      'status_list_expiry',
      'status_value',
    ])
      expect(checks, check).toContain(`degree:${check}:passed`);
    expect(doc.checks.every((c: any) => c.verdict === 'passed')).toBe(true);
    // Answered once: a replay is refused.
    const replay = await post(
      '/oid4vp/response',
      form({ vp_token: JSON.stringify({ degree: [vp] }), state: created.state }),
    );
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_request');
  });

  it('the default query (mDL family_name + document_number) answered by an mdoc DeviceResponse', async () => {
    const created = await create({ client_id_prefix: 'x509_hash' });
    expect(created.dcql_query.credentials[0]).toMatchObject({
      format: 'mso_mdoc',
      meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
    });
    const fetched = await fetch(created.request_uri);
    expect(fetched.headers.get('content-type')).toContain('application/oauth-authz-req+jwt');
    const vp = await presentMdoc(credentials.MobileDrivingLicenceMsoMdoc, holder, answering(created), [
      'family_name',
      'document_number',
    ]);
    expect(
      (await post('/oid4vp/response', form({ vp_token: JSON.stringify({ mdl: [vp] }), state: created.state }))).status,
    ).toBe(200);
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(doc.presentations.mdl[0].claims).toEqual({
      'org.iso.18013.5.1': { family_name: expect.any(String), document_number: 'PD-ALICE-0001' },
    });
  });

  it('jwt_vc_json and ldp_vc presentations', async () => {
    const jwtReq = await create({ dcql_query: degreeQuery('jwt_vc_json', [['credentialSubject', 'degree']]) });
    const jwtVp = await presentJwtVc(credentials.UniversityDegreeCredentialJWT, holder, answering(jwtReq));
    expect(
      (await post('/oid4vp/response', form({ vp_token: JSON.stringify({ degree: [jwtVp] }), state: jwtReq.state })))
        .status,
    ).toBe(200);
    const jwtDoc = await result(jwtReq);
    expect(jwtDoc.status, JSON.stringify(jwtDoc.reasons)).toBe('verified');
    const ldpReq = await create({ dcql_query: degreeQuery('ldp_vc', [['credentialSubject', 'degree']]) });
    const ldpVp = await presentLdpVc(credentials.UniversityDegreeCredentialLDP, holder, answering(ldpReq));
    expect(
      (await post('/oid4vp/response', form({ vp_token: JSON.stringify({ degree: [ldpVp] }), state: ldpReq.state })))
        .status,
    ).toBe(200);
    const ldpDoc = await result(ldpReq);
    expect(ldpDoc.status, JSON.stringify(ldpDoc.reasons)).toBe('verified');
    expect(ldpDoc.presentations.degree[0]).toMatchObject({
      format: 'ldp_vc',
      claims: { degree: 'Bachelor of Science' },
    });
  });
});
