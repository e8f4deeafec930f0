import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAsBrowser } from '../../support/browser-like.ts';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 18: the wallet's OID4VCI client against our issuer over HTTP.
let main: TestServer;
let wallet: TestWallet;
let iaca: string;
beforeAll(async () => {
  main = await startMainServer();
  iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  wallet = await startWalletServer({
    clock: main.clock,
    env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca },
    wallet: { wait: async (ms) => main.clock.advance(ms) },
  });
});
afterAll(async () => {
  await wallet.close();
  await main.close();
});

let sessionCounter = 0;
const newSession = () => `it-issuance-${++sessionCounter}`;
const call = async (session: string, path: string, body?: unknown) => {
  const res = await fetch(`${wallet.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-wallet-session': session, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('wallet OID4VCI client against our issuer', () => {
  it('/api/issue: an SD-JWT VC batch (batch_size 2), matched by holder key, one active, cached on the second call', async () => {
    const s = newSession();
    const issued = await call(s, '/api/issue', { credential_configuration_id: 'UniversityDegreeCredential' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body).toMatchObject({
      status: 'issued',
      credential_source: 'issuer',
      issuer_status_uri: expect.stringContaining('/oid4vci/offers/'),
    });
    expect(issued.body.credential_ids).toHaveLength(2);
    const steps = issued.body._protocol_exchanges.map((e: { step: string }) => e.step);
    expect(steps).toEqual(
      expect.arrayContaining([
        'metadata',
        'as_metadata',
        'issuer_offer',
        'offer',
        'token',
        'jwks',
        'nonce',
        'credential',
        'notification',
      ]),
    );
    const proofs = issued.body._looking_glass_events.filter((e: { kind: string }) => e.kind === 'openid4vci-proof+jwt');
    expect(proofs).toHaveLength(2);
    expect(proofs[0].header.jwk).not.toEqual(proofs[1].header.jwk);
    expect(proofs[0].payload.iss).toBeUndefined(); // anonymous pre-authorized access
    const view = (await call(s, '/api/session')).body;
    expect(view.credentials).toHaveLength(2);
    const active = view.credentials.find((c: { active: boolean }) => c.active);
    expect(active).toMatchObject({
      format: 'dc+sd-jwt',
      batch_secondary: false,
      holder_key_thumbprint: view.wallet_key_thumbprint,
      credential_configuration_id: 'UniversityDegreeCredential',
      claims: expect.objectContaining({ degree: 'Bachelor of Science' }),
    });
    expect(view.credentials.find((c: { active: boolean }) => !c.active)).toMatchObject({ batch_secondary: true });
    const again = await call(s, '/api/issue', { credential_configuration_id: 'UniversityDegreeCredential' });
    expect(again.body).toMatchObject({
      status: 'issued',
      credential_source: 'cached',
      credential_ids: [active.credential_id],
    });
    // Behaviour 6: the issuer advertises request-encryption keys with encryption_required false; nothing is encrypted.
    const metadataHop = issued.body._protocol_exchanges.find((e: { step: string }) => e.step === 'metadata');
    expect(metadataHop.response.body.credential_request_encryption).toMatchObject({
      encryption_required: false,
      jwks: { keys: [expect.objectContaining({ use: 'enc' })] },
    });
    expect(
      issued.body._protocol_exchanges
        .filter((e: { step: string }) => e.step === 'credential')
        .every((e: { request: { body: unknown } }) => typeof e.request.body === 'object'),
    ).toBe(true);
    const status = (await (await fetch(issued.body.issuer_status_uri)).json()) as Record<string, any>;
    expect(status).toMatchObject({
      status: 'notified',
      proof_count: 2,
      token_type: 'DPoP',
      notification_event: 'credential_accepted',
    });
  });

  it('/api/issue: an mdoc checked against the IACA and bound to the device key; secondaries stored, not active', async () => {
    const s = newSession();
    const issued = await call(s, '/api/issue', { credential_format: 'mso_mdoc' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const view = (await call(s, '/api/session')).body;
    const active = view.credentials.find((c: { active: boolean }) => c.active);
    expect(active).toMatchObject({
      format: 'mso_mdoc',
      doctype: 'org.iso.18013.5.1.mDL',
      holder_key_thumbprint: view.device_key_thumbprint,
      claims: { 'org.iso.18013.5.1': expect.objectContaining({ document_number: 'PD-ALICE-0001' }) },
    });
    expect(view.credentials.filter((c: { batch_secondary: boolean }) => c.batch_secondary)).toHaveLength(1);
  });

  it('an mdoc is refused without an IACA root (behaviour 10), the exchanges still shown', async () => {
    const bare = await startWalletServer({ clock: main.clock, env: { BASE_URL: main.url } });
    try {
      const res = await fetch(`${bare.url}/api/issue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-session': 'no-roots' },
        body: JSON.stringify({ credential_format: 'mso_mdoc' }),
      });
      const body = (await res.json()) as Record<string, any>;
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ error: 'invalid_credential', check: 'chain' });
      expect(body._protocol_exchanges.length).toBeGreaterThan(4);
    } finally {
      await bare.close();
    }
  });

  it('/api/import: an openid-credential-offer:// URI with tx_code (400 tx_code_required first), the three W3C formats, deferred', async () => {
    const s = newSession();
    const created = (await (
      await fetch(
        `${main.url}/oid4vci/offers`,
        json({ credential_configuration_ids: ['UniversityDegreeCredentialJWT'], tx_code: true }),
      )
    ).json()) as Record<string, any>;
    const missing = await call(s, '/api/import', { offer: created.offer_url });
    expect(missing).toMatchObject({
      status: 400,
      body: { error: 'tx_code_required', tx_code: { length: 6, input_mode: 'numeric' } },
    });
    const imported = await call(s, '/api/import', { offer: created.offer_url, tx_code: created.tx_code_value });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const ldp = (await (
      await fetch(
        `${main.url}/oid4vci/offers`,
        json({ credential_configuration_ids: ['UniversityDegreeCredentialLDP'], by_value: true }),
      )
    ).json()) as Record<string, any>;
    expect((await call(s, '/api/import', { offer: ldp.credential_offer })).status).toBe(200);
    const jwtLd = (await (
      await fetch(
        `${main.url}/oid4vci/offers`,
        json({ credential_configuration_ids: ['UniversityDegreeCredentialJWTLD'], by_value: true }),
      )
    ).json()) as Record<string, any>;
    const importedLd = await call(s, '/api/import', { offer: jwtLd.credential_offer });
    expect(importedLd.status, JSON.stringify(importedLd.body).slice(0, 300)).toBe(200);
    const deferred = await call(s, '/api/issue', {
      credential_configuration_id: 'MobileDrivingLicenceMsoMdoc',
      deferred: true,
      force: true,
    });
    expect(deferred.status, JSON.stringify(deferred.body)).toBe(200);
    expect(deferred.body._protocol_exchanges.map((e: { step: string }) => e.step)).toContain('deferred');
    const formats = (await call(s, '/api/session')).body.credentials.map((c: { format: string }) => c.format);
    expect(formats).toEqual(expect.arrayContaining(['jwt_vc_json', 'jwt_vc_json-ld', 'ldp_vc', 'mso_mdoc']));
  });

  it('wallet-initiated: configurations listed, then PAR + PKCE, an authorization URL with only client_id and request_uri, and the callback', async () => {
    const s = newSession();
    const listed = await call(s, '/api/import', {
      credential_issuer: `${main.url}/.well-known/openid-credential-issuer/oid4vci`,
    });
    expect(listed.body.status).toBe('configuration_selection_required');
    expect(
      listed.body.credential_configurations.map(
        (c: { credential_configuration_id: string }) => c.credential_configuration_id,
      ),
    ).toContain('UniversityDegreeCredential');
    expect(listed.body._protocol_exchanges.every((e: { method: string }) => e.method === 'GET')).toBe(true);
    const started = await call(s, '/api/import', {
      credential_issuer: `${main.url}/oid4vci`,
      credential_configuration_id: 'UniversityDegreeCredential',
    });
    expect(started.body.status, JSON.stringify(started.body)).toBe('authorization_required');
    const authorizeUrl = new URL(started.body.authorization_url);
    expect([...authorizeUrl.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const landed = await authorizeAsBrowser(authorizeUrl);
    const callback = new URL(landed.location!);
    expect(callback.origin + callback.pathname).toBe(`${wallet.url}/api/oid4vci/callback`);
    const back = await fetch(callback, { redirect: 'manual' });
    expect(back.status).toBe(302);
    const location = new URL(back.headers.get('location')!, wallet.url);
    expect(location.searchParams.get('oid4vci_status'), location.searchParams.get('oid4vci_message') ?? '').toBe(
      'success',
    );
    expect((await call(s, '/api/session')).body.credentials.length).toBeGreaterThan(0);
    // The state is single use.
    const replay = await fetch(callback, { redirect: 'manual' });
    expect(new URL(replay.headers.get('location')!, wallet.url).searchParams.get('oid4vci_status')).toBe('error');
  });

  it('rejects an authorization server metadata URL as credential_issuer, and a bad import body', async () => {
    const s = newSession();
    expect(
      (
        await call(s, '/api/import', {
          credential_issuer: `${main.url}/.well-known/oauth-authorization-server/oid4vci`,
        })
      ).status,
    ).toBe(400);
    expect((await call(s, '/api/import', {})).body.error).toBe('invalid_request');
    expect((await call(s, '/api/import', { offer: 'openid-credential-offer://?nothing=1' })).body.error).toBe(
      'invalid_request',
    );
  });

  it('refuses an offer whose grant members have the wrong type (OpenID4VCI 1.0 §4.1.1), naming the member', async () => {
    const s = newSession();
    const offer = (grants: unknown) => ({
      offer: {
        credential_issuer: `${main.url}/oid4vci`,
        credential_configuration_ids: ['UniversityDegreeCredential'],
        grants,
      },
    });
    const pre = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
    const cases: Array<[unknown, string]> = [
      [[], 'grants must be an object'],
      [{ [pre]: { 'pre-authorized_code': 'code', authorization_server: 42 } }, 'authorization_server must be a string'],
      [{ [pre]: { 'pre-authorized_code': 'code', tx_code: 'yes' } }, 'tx_code must be an object'],
      [{ [pre]: { 'pre-authorized_code': 'code', tx_code: { length: '4' } } }, 'tx_code.length must be an integer'],
      [{ [pre]: { 'pre-authorized_code': 'code', tx_code: { input_mode: 1 } } }, 'tx_code.input_mode must be a string'],
      [{ authorization_code: { issuer_state: {} } }, 'authorization_code.issuer_state must be a string'],
      [{ authorization_code: 'state' }, 'the authorization_code grant must be an object'],
    ];
    for (const [grants, description] of cases) {
      const answer = await call(s, '/api/import', offer(grants));
      expect(answer.status, description).toBe(400);
      expect(answer.body.error).toBe('invalid_request');
      expect(answer.body.error_description).toContain(description);
      // Refused before any call: no hop to the issuer was made.
      expect(answer.body._protocol_exchanges ?? []).toEqual([]);
    }
  });
});
