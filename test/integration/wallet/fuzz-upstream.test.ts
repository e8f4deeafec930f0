import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

/**
 * Issues 18 and 19: a scripted issuer and verifier, configured as the trusted ones, answer every hop
 * with fuzzed offers, metadata, token and credential responses, and request objects, drawn by
 * fast-check around valid shapes. Whatever comes back, the wallet answers with its own JSON error
 * shape and no 5xx other than 502 `upstream_error`, and its `error`/`error_description` never carry
 * upstream text (every error body the upstream sends holds a canary).
 */
const CANARY = 'CANARY7f3e';
let upstream: Server;
let origin: string;
let wallet: TestWallet;
/** The answers of the current run by path, and for any other path. */
let script: { byPath: Map<string, Answer>; other: Answer } = {
  byPath: new Map(),
  other: { status: 404, type: 'text/plain', body: CANARY },
};

interface Answer {
  status: number;
  type: string;
  body: string;
}

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  upstream = createServer((req, res) => {
    req.resume();
    const answer = script.byPath.get((req.url ?? '').split('?')[0]) ?? script.other;
    res
      .writeHead(answer.status, {
        'content-type': answer.type,
        ...(answer.status >= 300 && answer.status < 400 ? { location: `${origin}/moved` } : {}),
      })
      .end(answer.status === 204 ? undefined : answer.body);
  });
  await new Promise<void>((resolve) => upstream.listen(port, '127.0.0.1', resolve));
  wallet = await startWalletServer({
    env: { BASE_URL: 'http://127.0.0.1:1', WALLET_ISSUER_BASE_URL: origin, WALLET_TARGET_BASE_URL: origin },
    wallet: { wait: async () => {} },
  });
});
afterAll(async () => {
  await wallet.close();
  await new Promise((resolve) => upstream.close(resolve));
});

/** A value that is sometimes right for its member and sometimes anything at all. */
const either = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: fc.anything() });
/** Built per sample: the upstream's origin is only known once it listens. */
const url = (path: string) => fc.constant(path).map((p) => `${origin}${p}`);

const configuration = fc.record(
  {
    format: either(fc.constantFrom('dc+sd-jwt', 'mso_mdoc', 'jwt_vc_json', 'ldp_vc')),
    vct: either(fc.string()),
    doctype: either(fc.constant('org.iso.18013.5.1.mDL')),
    proof_types_supported: either(
      fc.record({ jwt: fc.record({ proof_signing_alg_values_supported: fc.constant(['ES256']) }) }),
    ),
  },
  { requiredKeys: [] },
);
const issuerMetadata = fc.record(
  {
    credential_issuer: either(url('/oid4vci')),
    credential_endpoint: either(url('/credential')),
    nonce_endpoint: either(url('/nonce')),
    deferred_credential_endpoint: either(url('/deferred')),
    notification_endpoint: either(url('/notification')),
    authorization_servers: either(fc.tuple(url('/oid4vci'))),
    batch_credential_issuance: either(fc.record({ batch_size: fc.integer({ min: -2, max: 1000 }) })),
    credential_configurations_supported: either(
      fc.dictionary(
        fc.constantFrom('UniversityDegreeCredential', 'MobileDrivingLicenceMsoMdoc', '__proto__', 'constructor'),
        configuration,
      ),
    ),
    credential_request_encryption: either(fc.record({ encryption_required: fc.boolean(), jwks: fc.anything() })),
    credential_response_encryption: either(
      fc.record({ encryption_required: fc.boolean(), enc_values_supported: fc.anything() }),
    ),
  },
  { requiredKeys: [] },
);
const asMetadata = fc.record(
  {
    issuer: either(url('/oid4vci')),
    token_endpoint: either(url('/token')),
    authorization_endpoint: either(url('/authorize')),
    pushed_authorization_request_endpoint: either(url('/par')),
    jwks_uri: either(url('/jwks')),
    dpop_signing_alg_values_supported: either(fc.constant(['ES256'])),
    challenge_endpoint: either(url('/challenge')),
  },
  { requiredKeys: [] },
);
const offer = fc.record(
  {
    credential_issuer: either(url('/oid4vci')),
    credential_configuration_ids: either(
      fc.array(fc.constantFrom('UniversityDegreeCredential', 'MobileDrivingLicenceMsoMdoc', 'x'), { maxLength: 3 }),
    ),
    grants: either(
      fc.record({
        'urn:ietf:params:oauth:grant-type:pre-authorized_code': fc.record(
          { 'pre-authorized_code': fc.string(), tx_code: fc.option(fc.anything(), { nil: undefined }) },
          { requiredKeys: ['pre-authorized_code'] },
        ),
      }),
    ),
  },
  { requiredKeys: [] },
);
const token = fc.record(
  {
    access_token: either(fc.string()),
    token_type: either(fc.constantFrom('Bearer', 'DPoP')),
    authorization_details: fc.anything(),
  },
  { requiredKeys: [] },
);
const credentialResponse = fc.record(
  {
    credentials: either(
      fc.array(
        fc.record({ credential: fc.oneof(fc.string(), fc.constant('eyJhbGciOiJFUzI1NiJ9.e30.sig~'), fc.anything()) }),
        { maxLength: 3 },
      ),
    ),
    transaction_id: either(fc.string()),
    interval: fc.anything(),
    notification_id: either(fc.string()),
    c_nonce: either(fc.string()),
  },
  { requiredKeys: [] },
);
const compactJwt = fc
  .tuple(fc.jsonValue(), fc.jsonValue())
  .map(
    ([h, p]) =>
      `${Buffer.from(JSON.stringify(h)).toString('base64url')}.${Buffer.from(JSON.stringify(p)).toString('base64url')}.c2ln`,
  );
const requestObject = fc
  .record(
    {
      client_id: either(
        fc.constantFrom(
          'redirect_uri:x',
          'x509_hash:abc',
          'decentralized_identifier:did:jwk:e30',
          'verifier_attestation:v',
          'x509_san_dns:example.com',
        ),
      ),
      response_type: either(fc.constant('vp_token')),
      response_mode: either(fc.constantFrom('direct_post', 'direct_post.jwt')),
      response_uri: either(url('/response')),
      nonce: either(fc.string()),
      dcql_query: either(
        fc.record({
          credentials: fc.array(fc.record({ id: fc.string(), format: fc.constantFrom('dc+sd-jwt', 'mso_mdoc') }), {
            maxLength: 2,
          }),
        }),
      ),
      client_metadata: fc.anything(),
    },
    { requiredKeys: [] },
  )
  .chain((payload) =>
    fc.constantFrom(
      `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'oauth-authz-req+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`,
      `${Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'oauth-authz-req+jwt', x5c: ['MIIB'] })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`,
    ),
  );

const json = (status: number) => (value: unknown) => ({
  status,
  type: 'application/json',
  body: JSON.stringify(value),
});
const anyAnswer: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(issuerMetadata, asMetadata, offer, token, credentialResponse).map(json(200)) },
  { weight: 1, arbitrary: credentialResponse.map(json(202)) },
  { weight: 1, arbitrary: fc.constant({ status: 204, type: 'text/plain', body: '' }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(400, 401, 404, 500, 503),
        fc.constantFrom('use_dpop_nonce', 'invalid_request', `${CANARY} <script>`),
      )
      .map(([status, error]) => ({
        status,
        type: 'application/json',
        body: JSON.stringify({ error, error_description: `${CANARY} upstream detail` }),
      })),
  },
  { weight: 1, arbitrary: fc.constantFrom(302, 307).map((status) => ({ status, type: 'text/html', body: CANARY })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(requestObject, compactJwt, fc.string())
      .map((body) => ({ status: 200, type: 'application/oauth-authz-req+jwt', body })),
  },
  { weight: 1, arbitrary: fc.string().map((s) => ({ status: 200, type: 'text/plain', body: `${CANARY}${s}` })) },
);

const at = (path: string) => encodeURIComponent(`${origin}${path}`);
/** Mostly the shape the path is for (fuzzed inside), sometimes any answer at all. */
const shaped = (valid: fc.Arbitrary<Answer>) =>
  fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: anyAnswer });
const answers = fc
  .record({
    '/.well-known/openid-credential-issuer/oid4vci': shaped(issuerMetadata.map(json(200))),
    '/.well-known/oauth-authorization-server/oid4vci': shaped(asMetadata.map(json(200))),
    '/oid4vci/offers': shaped(offer.map((o) => json(201)({ credential_offer: o, tx_code_value: '123456' }))),
    '/offer': shaped(offer.map(json(200))),
    '/token': shaped(token.map(json(200))),
    '/nonce': shaped(fc.record({ c_nonce: either(fc.string()) }).map(json(200))),
    '/credential': shaped(fc.oneof(credentialResponse.map(json(200)), credentialResponse.map(json(202)))),
    '/deferred': shaped(credentialResponse.map(json(200))),
    '/notification': shaped(fc.constant({ status: 204, type: 'text/plain', body: '' })),
    '/jwks': shaped(fc.record({ keys: fc.anything() }).map(json(200))),
    '/par': shaped(fc.record({ request_uri: either(fc.string()), expires_in: fc.anything() }).map(json(201))),
    '/challenge': shaped(fc.record({ attestation_challenge: either(fc.string()) }).map(json(200))),
    '/request': shaped(
      fc
        .oneof(requestObject, compactJwt, fc.string())
        .map((body) => ({ status: 200, type: 'application/oauth-authz-req+jwt', body })),
    ),
  })
  .chain((byPath) => anyAnswer.map((other) => ({ byPath: new Map(Object.entries(byPath)), other })));

const calls = fc.oneof(
  fc.constant(() => ({ path: '/api/issue', body: { force: true } })),
  fc.constant(() => ({ path: '/api/issue', body: { credential_format: 'mso_mdoc', tx_code: true, force: true } })),
  fc.constant(() => ({
    path: '/api/import',
    body: { offer: `openid-credential-offer://?credential_offer_uri=${at('/offer')}` },
  })),
  offer.map((o) => () => ({ path: '/api/import', body: { offer: o, tx_code: '1234' } })),
  fc.constant(() => ({ path: '/api/import', body: { credential_issuer: `${origin}/oid4vci` } })),
  fc.constant(() => ({
    path: '/api/import',
    body: { credential_issuer: `${origin}/oid4vci`, credential_configuration_id: 'UniversityDegreeCredential' },
  })),
  fc.constant(() => ({
    path: '/api/resolve',
    body: { uri: `openid4vp://?client_id=redirect_uri%3Ax&request_uri=${at('/request')}` },
  })),
  fc.constant(() => ({
    path: '/api/resolve',
    body: { uri: `openid4vp://?client_id=x509_hash%3Aabc&request_uri=${at('/request')}&request_uri_method=post` },
  })),
  fc.constant(() => ({
    path: '/submit',
    body: { uri: `openid4vp://?client_id=decentralized_identifier%3Adid%3Ajwk%3Ae30&request_uri=${at('/request')}` },
  })),
);

describe('fuzzed upstream answers to the wallet (issuer and verifier)', () => {
  it('never a 5xx but 502 upstream_error, the wallet error shape, no upstream text in error or error_description', async () => {
    let session = 0;
    await fc.assert(
      fc.asyncProperty(calls, answers, async (makeCall, scripted) => {
        const call = makeCall();
        script = scripted;
        const res = await fetch(`${wallet.url}${call.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-wallet-session': `fuzz-${++session}` },
          body: JSON.stringify(call.body),
        });
        const text = await res.text();
        expect(res.status < 500 || res.status === 502, `${call.path} -> ${res.status} ${text.slice(0, 300)}`).toBe(
          true,
        );
        const body = JSON.parse(text) as Record<string, unknown>;
        if (process.env.FUZZ_HISTOGRAM)
          console.log(
            'HIST',
            call.path,
            res.status,
            body.error ?? body.status,
            String(body.error_description ?? '').slice(0, 70),
          );
        if (res.status >= 400) {
          expect(typeof body.error).toBe('string');
          if (res.status === 502) expect(body.error).toBe('upstream_error');
          expect(`${body.error} ${body.error_description ?? ''}`).not.toContain(CANARY);
        }
        expect(text).not.toMatch(/\n\s+at .+\.(ts|js):\d+/);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 250) },
    );
  }, 120_000);
});
