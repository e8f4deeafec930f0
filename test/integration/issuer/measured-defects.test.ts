import { createHash } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 30, issuer items 1-8: each test failed before its fix.
let server: TestServer;
let issuer: string;
beforeAll(async () => {
  server = await startMainServer();
  issuer = `${server.url}/oid4vci`;
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, any>;
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const post = (path: string, init: RequestInit) => exchange(server.url, path, init);
const keyPair = async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: await exportJWK(publicKey) };
};
type Key = { privateKey: CryptoKey; jwk: JWK };
const now = () => Math.floor(server.clock.now() / 1000);
const keyProof = (key: Key, nonce: string) =>
  new SignJWT({ nonce })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: key.jwk })
    .setAudience(issuer)
    .setIssuedAt(now())
    .sign(key.privateKey);
const dpopProof = (key: Key, htm: string, htu: string, ath?: string) =>
  new SignJWT({ htm, htu, jti: crypto.randomUUID(), ...(ath ? { ath } : {}) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .setIssuedAt(now())
    .sign(key.privateKey);
const athOf = (token: string) => createHash('sha256').update(token).digest('base64url');
const nonce = async () => (await post('/oid4vci/nonce', { method: 'POST' })).body.c_nonce as string;

async function bearerToken(offer: Json = {}) {
  const created = (
    await post('/oid4vci/offers', json({ credential_configuration_ids: ['UniversityDegreeCredential'], ...offer }))
  ).body;
  const token = await post(
    '/oid4vci/token',
    form({ grant_type: PRE_AUTH, 'pre-authorized_code': created.pre_authorized_code }),
  );
  expect(token.status).toBe(200);
  return { offer: created, accessToken: token.body.access_token as string };
}

async function issued() {
  const { offer, accessToken } = await bearerToken();
  const holder = await keyPair();
  const res = await post(
    '/oid4vci/credential',
    json(
      {
        credential_configuration_id: 'UniversityDegreeCredential',
        proofs: { jwt: [await keyProof(holder, await nonce())] },
      },
      { authorization: `Bearer ${accessToken}` },
    ),
  );
  expect(res.status).toBe(200);
  return { offer, accessToken, notificationId: res.body.notification_id as string };
}

describe('issuer metadata (items 1 and 7)', () => {
  it('[item 1] the credential issuer metadata names jwks_uri, the same as the AS metadata', async () => {
    const meta = (await post('/.well-known/openid-credential-issuer/oid4vci', { method: 'GET' })).body;
    const as = (await post('/.well-known/oauth-authorization-server/oid4vci', { method: 'GET' })).body;
    expect(meta.jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
    expect(meta.jwks_uri).toBe(as.jwks_uri);
    const jwks = (await fetch(meta.jwks_uri).then((r) => r.json())) as Json;
    expect(jwks.keys.length).toBeGreaterThan(0);
  });

  it('[item 7] the draft-13 appended paths serve the same documents (JSON and signed)', async () => {
    const canonical = await (await fetch(`${server.url}/.well-known/openid-credential-issuer/oid4vci`)).text();
    const legacy = await fetch(`${issuer}/.well-known/openid-credential-issuer`);
    expect(legacy.status).toBe(200);
    expect(await legacy.text()).toBe(canonical);
    const asCanonical = await (await fetch(`${server.url}/.well-known/oauth-authorization-server/oid4vci`)).text();
    const asLegacy = await fetch(`${issuer}/.well-known/oauth-authorization-server`);
    expect(asLegacy.status).toBe(200);
    expect(await asLegacy.text()).toBe(asCanonical);
    const signed = await fetch(`${issuer}/.well-known/openid-credential-issuer`, {
      headers: { accept: 'application/jwt' },
    });
    expect(signed.headers.get('content-type')).toContain('application/jwt');
    expect((await signed.text()).split('.')).toHaveLength(3);
  });
});

describe('DPoP at the credential side answers 401 with a DPoP challenge (item 2)', () => {
  let accessToken: string;
  let dpopKey: Key;
  beforeAll(async () => {
    const created = (
      await post('/oid4vci/offers', json({ credential_configuration_ids: ['UniversityDegreeCredential'] }))
    ).body;
    dpopKey = await keyPair();
    const token = await post(
      '/oid4vci/token',
      form(
        { grant_type: PRE_AUTH, 'pre-authorized_code': created.pre_authorized_code },
        { dpop: await dpopProof(dpopKey, 'POST', `${issuer}/token`) },
      ),
    );
    expect(token.body.token_type).toBe('DPoP');
    accessToken = token.body.access_token;
  });

  for (const path of ['/oid4vci/credential', '/oid4vci/deferred_credential', '/oid4vci/notification']) {
    it(`[item 2] ${path}: a missing proof, a wrong one and one without ath are 401 invalid_dpop_proof with WWW-Authenticate: DPoP`, async () => {
      const body =
        path === '/oid4vci/credential'
          ? { credential_configuration_id: 'UniversityDegreeCredential', proofs: { jwt: ['x'] } }
          : path === '/oid4vci/notification'
            ? { notification_id: 'x', event: 'credential_accepted' }
            : { transaction_id: 'x' };
      const cases: Record<string, Record<string, string>> = {
        missing: {},
        wrong: { dpop: 'not-a-jwt' },
        'without ath': { dpop: await dpopProof(dpopKey, 'POST', `${server.url}${path}`) },
        'wrong htu': { dpop: await dpopProof(dpopKey, 'POST', `${server.url}/elsewhere`, athOf(accessToken)) },
      };
      for (const [name, headers] of Object.entries(cases)) {
        const res = await post(path, json(body, { authorization: `DPoP ${accessToken}`, ...headers }));
        expect(res.status, name).toBe(401);
        expect(res.body.error, name).toBe('invalid_dpop_proof');
        expect(res.headers.get('www-authenticate'), name).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
      }
    });
  }

  it('[item 2] the scheme is matched without regard to case (RFC 9110 §11.1)', async () => {
    const holder = await keyPair();
    const res = await post(
      '/oid4vci/credential',
      json(
        {
          credential_configuration_id: 'UniversityDegreeCredential',
          proofs: { jwt: [await keyProof(holder, await nonce())] },
        },
        {
          authorization: `dpop ${accessToken}`,
          dpop: await dpopProof(dpopKey, 'POST', `${issuer}/credential`, athOf(accessToken)),
        },
      ),
    );
    expect(res.status).toBe(200);
    const bearer = await bearerToken();
    const lower = await post(
      '/oid4vci/credential',
      json(
        {
          credential_configuration_id: 'UniversityDegreeCredential',
          proofs: { jwt: [await keyProof(holder, await nonce())] },
        },
        { authorization: `bEARER ${bearer.accessToken}` },
      ),
    );
    expect(lower.status).toBe(200);
  });
});

describe('notification (item 3)', () => {
  it('[item 3] an event_description outside %x20-21 / %x23-5B / %x5D-7E is invalid_notification_request', async () => {
    const { accessToken, notificationId } = await issued();
    for (const description of ['say "hi"', 'back\\slash', 'caf\u00e9', 'line\nbreak', 42]) {
      const res = await post(
        '/oid4vci/notification',
        json(
          { notification_id: notificationId, event: 'credential_accepted', event_description: description },
          { authorization: `Bearer ${accessToken}` },
        ),
      );
      expect(res.status, String(description)).toBe(400);
      expect(res.body.error).toBe('invalid_notification_request');
    }
    const ok = await post(
      '/oid4vci/notification',
      json(
        {
          notification_id: notificationId,
          event: 'credential_accepted',
          event_description: 'Stored in the wallet! (#1)',
        },
        { authorization: `Bearer ${accessToken}` },
      ),
    );
    expect(ok.status).toBe(204);
  });

  it('[item 3] credential_failure is refused after credential_accepted, even with credential_deleted in between', async () => {
    const { accessToken, notificationId } = await issued();
    const notify = (event: string) =>
      post(
        '/oid4vci/notification',
        json({ notification_id: notificationId, event }, { authorization: `Bearer ${accessToken}` }),
      );
    expect((await notify('credential_accepted')).status).toBe(204);
    expect((await notify('credential_deleted')).status).toBe(204);
    const failure = await notify('credential_failure');
    expect(failure.status).toBe(400);
    expect(failure.body.error).toBe('invalid_notification_request');
  });
});

describe('token endpoint and credential request shape (items 5 and 6)', () => {
  it('[item 5] a JSON token request is 400 invalid_request naming form encoding', async () => {
    const created = (await post('/oid4vci/offers', json({}))).body;
    const res = await post(
      '/oid4vci/token',
      json({ grant_type: PRE_AUTH, 'pre-authorized_code': created.pre_authorized_code }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.error_description).toMatch(/form-encoded/);
    // The code was not spent: the same code still works as a form.
    expect(
      (await post('/oid4vci/token', form({ grant_type: PRE_AUTH, 'pre-authorized_code': created.pre_authorized_code })))
        .status,
    ).toBe(200);
  });

  it('[item 6, superseded by issue 45 item 25] the draft-era single proof object is accepted and noted', async () => {
    const { accessToken } = await bearerToken();
    const holder = await keyPair();
    const res = await post(
      '/oid4vci/credential',
      json(
        {
          credential_configuration_id: 'UniversityDegreeCredential',
          proof: { proof_type: 'jwt', jwt: await keyProof(holder, await nonce()) },
        },
        { authorization: `Bearer ${accessToken}` },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body.notes[0]).toMatch(/uses proofs/);
  });
});

describe('status (items 4 and 8)', () => {
  it('[item 4] after PAR and login the status reads authorization_requested until the token', async () => {
    const offer = (
      await post(
        '/oid4vci/offers',
        json({ grant: 'authorization_code', credential_configuration_ids: ['UniversityDegreeCredential'] }),
      )
    ).body;
    const verifier = 'v'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const redirect = 'http://127.0.0.1:9/cb';
    const par = await post(
      '/oid4vci/par',
      form({
        client_id: 'wallet-x',
        redirect_uri: redirect,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'vc:university_degree',
        issuer_state: offer.issuer_state,
      }),
    );
    expect(par.status).toBe(201);
    const status = async () =>
      ((await post(`/oid4vci/offers/${offer.offer_id}/status`, { method: 'GET' })).body as Json).status;
    expect(await status()).toBe('authorization_requested');
    const authorize = await fetch(
      `${issuer}/authorize?client_id=wallet-x&request_uri=${encodeURIComponent(par.body.request_uri)}`,
      { redirect: 'manual' },
    );
    const interaction = new URL(authorize.headers.get('location')!, server.url).href;
    expect(await status()).toBe('authorization_requested');
    const login = await fetch(`${interaction}/login`, {
      ...form({ username: 'alice', password: 'alice-demo-password' }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    expect(await status()).toBe('authorization_requested');
    const consent = await fetch(`${interaction}/consent`, { ...form({ decision: 'approve' }), redirect: 'manual' });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code');
    expect(code).toBeTruthy();
    expect(await status()).toBe('authorization_requested');
    const token = await post(
      '/oid4vci/token',
      form({
        grant_type: 'authorization_code',
        code: code!,
        client_id: 'wallet-x',
        redirect_uri: redirect,
        code_verifier: verifier,
      }),
    );
    expect(token.status).toBe(200);
    expect(await status()).toBe('token_issued');
  });

  it('[item 8] concurrent wrong tx_code guesses each hear the truth; the status names the burn', async () => {
    const offer = (await post('/oid4vci/offers', json({ tx_code: true }))).body;
    const wrong = offer.tx_code_value === '000000' ? '111111' : '000000';
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        post(
          '/oid4vci/token',
          form({ grant_type: PRE_AUTH, 'pre-authorized_code': offer.pre_authorized_code, tx_code: wrong }),
        ),
      ),
    );
    const descriptions = replies.map((r) => r.body.error_description as string);
    for (const r of replies) expect(r.body.error).toBe('invalid_grant');
    const left = descriptions
      .map((d) => /\((\d) attempt\(s\) left\)/.exec(d)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort();
    // Exactly the four replies before the burn claim attempts left, one per count: 4, 3, 2, 1.
    expect(left).toEqual([1, 2, 3, 4]);
    expect(descriptions.filter((d) => /burned$/.test(d))).toHaveLength(1);
    expect(descriptions.filter((d) => /already used, burned or has expired/.test(d))).toHaveLength(3);
    const status = (await post(`/oid4vci/offers/${offer.offer_id}/status`, { method: 'GET' })).body;
    expect(status).toMatchObject({ status: 'tx_code_burned', terminal: true, expired_reason: 'tx_code_burned' });
  });
});

describe('a finished issuance issues nothing more (found by npm run model-test)', () => {
  const acceptedBy = async (accessToken: string, notificationId: string) => {
    const notified = await post(
      '/oid4vci/notification',
      json(
        { notification_id: notificationId, event: 'credential_accepted' },
        { authorization: `Bearer ${accessToken}` },
      ),
    );
    expect(notified.status).toBe(204);
  };
  const credentialAgain = async (accessToken: string) =>
    post(
      '/oid4vci/credential',
      json(
        {
          credential_configuration_id: 'UniversityDegreeCredential',
          proofs: { jwt: [await keyProof(await keyPair(), await nonce())] },
        },
        { authorization: `Bearer ${accessToken}` },
      ),
    );

  it('after the notification, a credential request is credential_request_denied and the log is unchanged', async () => {
    const { offer, accessToken, notificationId } = await issued();
    await acceptedBy(accessToken, notificationId);
    const exported = async () => (await post(`/api/streams/issuance:${offer.offer_id}/export`, { method: 'GET' })).body;
    const before = await exported();
    const again = await credentialAgain(accessToken);
    expect([again.status, again.body.error]).toEqual([400, 'credential_request_denied']);
    expect(again.body.credentials).toBeUndefined();
    const after = await exported();
    expect(after.events).toHaveLength(before.events.length);
    expect(after.final_state).toBe('notified');
  });

  it('[issue 46 §4] a refused credential request allocates no status slot: the machine decides first', async () => {
    const { accessToken, notificationId } = await issued();
    await acceptedBy(accessToken, notificationId);
    const log = server.main.ctx.log;
    const slots = async () => {
      let n = 0;
      for (const id of await log.streamIds('status-list')) n += (await log.readStream(id)).length;
      return n;
    };
    const before = await slots();
    // Slots are reserved 16 at a time: 17 refused requests would have used up a reservation and made another.
    for (let i = 0; i < 17; i++) {
      const again = await credentialAgain(accessToken);
      expect([again.status, again.body.error]).toEqual([400, 'credential_request_denied']);
    }
    expect(await slots()).toBe(before);
  });
});
