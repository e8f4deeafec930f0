import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 19: the wallet's OID4VP holder against our verifier, judged by the verifier's result document.
let main: TestServer;
let wallet: TestWallet;
beforeAll(async () => {
  main = await startMainServer();
  const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  const verifierCa = await (await fetch(`${main.url}/oid4vp/ca.pem`)).text();
  wallet = await startWalletServer({
    clock: main.clock,
    env: {
      BASE_URL: main.url,
      WALLET_MDOC_IACA_ROOT_PEM: iaca,
      WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM: verifierCa,
      WALLET_TRUSTED_VERIFIER_ATTESTATION_ISSUERS: `${main.url}/oid4vp/verifier-attestation`,
    },
  });
});
afterAll(async () => {
  await wallet.close();
  await main.close();
});

let n = 0;
const session = () => `it-present-${++n}`;
const call = async (s: string, path: string, body?: unknown) => {
  const res = await fetch(`${wallet.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-wallet-session': s, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const create = async (body: Record<string, unknown>) =>
  (await exchange(main.url, '/oid4vp/request/create', json(body))).body;
const result = async (created: Record<string, any>) =>
  (await exchange(main.url, `/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;
const degree = {
  credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['family_name'] }, { path: ['degree'] }] }],
};

describe('wallet OID4VP holder against our verifier', () => {
  for (const prefix of ['redirect_uri', 'x509_hash', 'verifier_attestation', 'decentralized_identifier']) {
    for (const mode of ['direct_post', 'direct_post.jwt']) {
      it(`/submit ${prefix} + ${mode}: auto-issues the degree, discloses exactly the asked claims, verified`, async () => {
        const created = await create({ client_id_prefix: prefix, response_mode: mode, dcql_query: degree });
        const submitted = await call(session(), '/submit', { uri: created.authorization_request_uri });
        expect(submitted.status, JSON.stringify(submitted.body).slice(0, 600)).toBe(200);
        expect(submitted.body).toMatchObject({ upstream_status: 200, presented: [expect.any(String)] });
        if (mode === 'direct_post.jwt') expect(submitted.body.enc).toBe('A128GCM');
        const doc = await result(created);
        expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
        expect(Object.keys(doc.presentations.degree[0].claims).sort()).toEqual(['degree', 'family_name']);
      });
    }
  }

  it('the mDL over direct_post.jwt with A256GCM: the device key signs over the handover with the key thumbprint', async () => {
    const s = session();
    const created = await create({
      client_id_prefix: 'x509_hash',
      response_mode: 'direct_post.jwt',
      encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'],
    });
    const resolved = await call(s, '/api/resolve', { uri: created.authorization_request_uri });
    expect(resolved.body).toMatchObject({
      client_id_prefix: 'x509_hash',
      trust: { trusted_target: true, verified: true },
      credential_matches: { satisfiable: false },
      inferred_configuration_id: 'MobileDrivingLicenceMsoMdoc',
    });
    expect((await call(s, '/api/present', { request_id: resolved.body.request_id })).body.error).toBe(
      'no_matching_credential',
    );
    expect((await call(s, '/api/issue', { credential_configuration_id: 'MobileDrivingLicenceMsoMdoc' })).status).toBe(
      200,
    );
    const again = await call(s, '/api/resolve', { uri: created.authorization_request_uri });
    expect(again.body.credential_matches.satisfiable).toBe(true);
    const presented = await call(s, '/api/present', { request_id: again.body.request_id });
    expect(presented.body).toMatchObject({ upstream_status: 200, enc: 'A256GCM' });
    const doc = await result(created);
    expect(doc).toMatchObject({ status: 'verified', enc: 'A256GCM' });
    expect(doc.presentations.mdl[0].claims['org.iso.18013.5.1']).toEqual({
      family_name: expect.any(String),
      document_number: 'PD-ALICE-0001',
    });
  });

  it('request_uri_method post: a fresh wallet_nonce goes out and must come back', async () => {
    const created = await create({ client_id_prefix: 'x509_hash', request_uri_method: 'post', dcql_query: degree });
    const submitted = await call(session(), '/submit', { uri: created.authorization_request_uri });
    expect(submitted.status, JSON.stringify(submitted.body).slice(0, 400)).toBe(200);
    const fetchHop = submitted.body._protocol_exchanges.find((e: { step: string }) => e.step === 'request_object');
    expect(fetchHop).toMatchObject({
      method: 'POST',
      request: { body: { wallet_nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) } },
    });
    expect((await result(created)).status).toBe('verified');
  });

  it('HAIP: the verifier redirect_uri on http is refused by the rule, not followed', async () => {
    const s = session();
    await call(s, '/api/issue', { credential_configuration_id: 'MobileDrivingLicenceMsoMdoc' });
    const created = await create({ profile: 'haip' });
    const presented = await call(s, '/submit', { uri: created.authorization_request_uri });
    expect(presented.body).toMatchObject({ upstream_status: 200, redirect_uri_refused: 'not https' });
    expect(presented.body.redirect_uri).toBeUndefined();
    expect((await result(created)).status).toBe('verified');
  });

  it('refuses: an untrusted verifier attestation issuer, an unanchored x509 chain, transaction_data without credential_ids', async () => {
    const strict = await startWalletServer({ clock: main.clock, env: { BASE_URL: main.url } });
    try {
      const attested = await create({ client_id_prefix: 'verifier_attestation', dcql_query: degree });
      const res = await fetch(`${strict.url}/api/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-session': 'strict' },
        body: JSON.stringify({ uri: attested.authorization_request_uri }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error_description: string }).error_description).toMatch(
        /WALLET_TRUSTED_VERIFIER_ATTESTATION_ISSUERS/,
      );
      const hashed = await create({ client_id_prefix: 'x509_hash', dcql_query: degree });
      // Issue 30 item 16: fail closed at /api/resolve, naming the trust failure.
      const hashedRes = await fetch(`${strict.url}/api/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-session': 'strict' },
        body: JSON.stringify({ uri: hashed.authorization_request_uri }),
      });
      expect(hashedRes.status).toBe(400);
      expect((await hashedRes.json()) as Record<string, any>).toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringContaining('trusted anchor'),
      });
    } finally {
      await strict.close();
    }
    const byValue = await create({ dcql_query: degree });
    const uri = new URL(byValue.authorization_request_uri);
    uri.searchParams.set('transaction_data', JSON.stringify(['eyJ0eXBlIjoieCJ9']));
    expect((await call(session(), '/api/resolve', { uri: uri.toString() })).body.error).toBe(
      'invalid_transaction_data',
    );
  });

  it('/authorize leads to the consent page; the person picks one claim and presents, or declines', async () => {
    const s = session();
    // family_name is wanted but optional (claim_sets): the person may withhold it.
    const optional = {
      credentials: [
        {
          id: 'degree',
          format: 'dc+sd-jwt',
          claims: [
            { id: 'f', path: ['family_name'] },
            { id: 'd', path: ['degree'] },
          ],
          claim_sets: [['f', 'd'], ['d']],
        },
      ],
    };
    const created = await create({ client_id_prefix: 'x509_hash', dcql_query: optional });
    const authorize = await fetch(
      `${wallet.url}/authorize?${new URL(created.authorization_request_uri).searchParams}`,
      { headers: { 'x-wallet-session': s }, redirect: 'manual' },
    );
    expect(authorize.status).toBe(302);
    const consent = authorize.headers.get('location')!;
    expect(consent).toMatch(/^\/consent\/req_/);
    const page = await (
      await fetch(`${wallet.url}${consent}`, { headers: { 'x-wallet-session': s, accept: 'text/html' } })
    ).text();
    expect(page).toContain(created.client_id);
    expect(page).toContain('degree|[&quot;degree&quot;]');
    expect(page).toContain('degree|[&quot;family_name&quot;]');
    // The decision carries the form's csrf token, as a browser posting the form does (issue 30 item 18).
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1];
    const approved = await fetch(`${wallet.url}${consent}`, {
      method: 'POST',
      headers: { 'x-wallet-session': s, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams([
        ['csrf', csrf],
        ['decision', 'approve'],
        ['claim', 'degree|["degree"]'],
      ]).toString(),
    });
    expect(approved.status).toBe(200);
    const doc = await result(created);
    expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
    expect(Object.keys(doc.presentations.degree[0].claims)).toEqual(['degree']);

    const second = await create({ client_id_prefix: 'x509_hash', dcql_query: degree });
    const again = await fetch(`${wallet.url}/authorize?${new URL(second.authorization_request_uri).searchParams}`, {
      headers: { 'x-wallet-session': s },
      redirect: 'manual',
    });
    const secondPage = await (
      await fetch(`${wallet.url}${again.headers.get('location')}`, {
        headers: { 'x-wallet-session': s, accept: 'text/html' },
      })
    ).text();
    const secondCsrf = /name="csrf" value="([^"]+)"/.exec(secondPage)![1];
    await fetch(`${wallet.url}${again.headers.get('location')}`, {
      method: 'POST',
      headers: { 'x-wallet-session': s, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: secondCsrf, decision: 'decline' }).toString(),
    });
    expect(await result(second)).toMatchObject({ status: 'wallet_error', wallet_error: { error: 'access_denied' } });
  });
});

describe('the mdoc device key across a restart (behaviour 3)', () => {
  it('with WALLET_DEVICE_KEY_PATH an mdoc imported again after a restart still presents; without it the import is refused', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'device-key-'));
    const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
    const verifierCa = await (await fetch(`${main.url}/oid4vp/ca.pem`)).text();
    const env = {
      BASE_URL: main.url,
      WALLET_MDOC_IACA_ROOT_PEM: iaca,
      WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM: verifierCa,
      WALLET_DEVICE_KEY_PATH: join(dir, 'device.p8'),
    };
    const post = (w: TestWallet, path: string, body: unknown) =>
      fetch(`${w.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-session': 'device' },
        body: JSON.stringify(body),
      });
    try {
      const first = await startWalletServer({ clock: main.clock, env });
      await post(first, '/api/issue', { credential_configuration_id: 'MobileDrivingLicenceMsoMdoc' });
      const held = (
        (await (await fetch(`${first.url}/api/session`, { headers: { 'x-wallet-session': 'device' } })).json()) as {
          credentials: Array<{ active: boolean; credential: string }>;
        }
      ).credentials.find((c) => c.active)!.credential;
      await first.close();

      const second = await startWalletServer({ clock: main.clock, env });
      try {
        const imported = await post(second, '/api/import', { credential: held, format: 'mso_mdoc' });
        expect(imported.status, JSON.stringify(await imported.clone().json()).slice(0, 300)).toBe(200);
        const created = await create({ client_id_prefix: 'x509_hash', response_mode: 'direct_post.jwt' });
        expect((await post(second, '/api/present', { uri: created.authorization_request_uri })).status).toBe(200);
        expect((await result(created)).status).toBe('verified');
      } finally {
        await second.close();
      }
      const ephemeral = await startWalletServer({
        clock: main.clock,
        env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca },
      });
      try {
        const refused = await post(ephemeral, '/api/import', { credential: held, format: 'mso_mdoc' });
        expect(refused.status).toBe(400);
        expect(await refused.json()).toMatchObject({ error: 'invalid_credential', check: 'holder_binding' });
      } finally {
        await ephemeral.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('x509_san_dns (the verifier on a DNS name)', () => {
  it('/submit against our verifier at localhost: the leaf SAN names the host, both response modes verified; an untrusted anchor is refused', async () => {
    const named = await startMainServer({ baseHost: 'localhost' });
    const verifierCa = await (await fetch(`${named.url}/oid4vp/ca.pem`)).text();
    const env = { BASE_URL: named.url, WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM: verifierCa };
    const trusting = await startWalletServer({ clock: named.clock, env });
    const untrusting = await startWalletServer({ clock: named.clock, env: { BASE_URL: named.url } });
    try {
      for (const mode of ['direct_post', 'direct_post.jwt']) {
        const created = (
          await exchange(
            named.url,
            '/oid4vp/request/create',
            json({ client_id_prefix: 'x509_san_dns', response_mode: mode, dcql_query: degree }),
          )
        ).body;
        expect(created.client_id).toBe('x509_san_dns:localhost');
        const res = await fetch(`${trusting.url}/submit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-wallet-session': `san-${mode}` },
          body: JSON.stringify({ uri: created.authorization_request_uri }),
        });
        expect(res.status, await res.clone().text()).toBe(200);
        const doc = (await exchange(named.url, `/oid4vp/result/${created.transaction_id}`, { method: 'GET' })).body;
        expect(doc.status, JSON.stringify(doc.reasons)).toBe('verified');
      }
      const created = (
        await exchange(
          named.url,
          '/oid4vp/request/create',
          json({ client_id_prefix: 'x509_san_dns', dcql_query: degree }),
        )
      ).body;
      const refused = await fetch(`${untrusting.url}/api/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-session': 'san-untrusted' },
        body: JSON.stringify({ uri: created.authorization_request_uri }),
      });
      const body = (await refused.json()) as Record<string, any>;
      expect(refused.status).toBe(400);
      expect(body).toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringMatching(/could not be authenticated/),
      });
    } finally {
      await untrusting.close();
      await trusting.close();
      await named.close();
    }
  });
});

describe('external verifiers (WALLET_ALLOW_EXTERNAL_VERIFIERS)', () => {
  it('need a per-request approval; once approved the outbound guard still vets the destination', async () => {
    const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
    // verifier.example resolves (test hook) to a documentation address: public-looking name, non-public destination.
    const open = await startWalletServer({
      clock: main.clock,
      env: {
        BASE_URL: main.url,
        WALLET_MDOC_IACA_ROOT_PEM: iaca,
        WALLET_ALLOW_EXTERNAL_VERIFIERS: 'true',
        WALLET_DNS_OVERRIDES: 'verifier.example=192.0.2.10',
      },
    });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${open.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-session': 'external' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    try {
      expect((await post('/api/issue', { credential_configuration_id: 'UniversityDegreeCredential' })).status).toBe(
        200,
      );
      const params = new URLSearchParams({
        client_id: 'redirect_uri:https://verifier.example/response',
        response_type: 'vp_token',
        response_mode: 'direct_post',
        response_uri: 'https://verifier.example/response',
        nonce: 'n-external',
        state: 's',
        dcql_query: JSON.stringify(degree),
      });
      const resolved = await post('/api/resolve', { uri: `openid4vp://?${params}` });
      expect(resolved.status, JSON.stringify(resolved.body).slice(0, 300)).toBe(200);
      expect(resolved.body.trust).toMatchObject({ trusted_target: false, approval_required: true });
      const unapproved = await post('/api/present', { request_id: resolved.body.request_id });
      expect(unapproved).toMatchObject({ status: 403, body: { error: 'external_approval_required' } });
      const approved = await post('/api/present', {
        request_id: resolved.body.request_id,
        approve_external_trust: true,
      });
      expect(approved).toMatchObject({ status: 400, body: { error: 'destination_not_allowed' } });
    } finally {
      await open.close();
    }
  });
});
