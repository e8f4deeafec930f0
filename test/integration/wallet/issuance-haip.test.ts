import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 18: HAIP issuance with the demo attester material, DPoP nonce mode and encryption required.
let main: TestServer;
let wallet: TestWallet;
let unattested: TestWallet;
beforeAll(async () => {
  main = await startMainServer({ env: { DPOP_NONCE_REQUIRED: 'true', OID4VCI_ENCRYPTION_REQUIRED: 'true' } });
  const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  const attester = (
    (await (await fetch(`${main.url}/oid4vci/demo/attester`)).json()) as { env: Record<string, string> }
  ).env;
  wallet = await startWalletServer({
    clock: main.clock,
    env: {
      BASE_URL: main.url,
      WALLET_MDOC_IACA_ROOT_PEM: iaca,
      ...attester,
      WALLET_KEY_ATTESTATION_KEY_STORAGE: 'iso_18045_moderate',
      WALLET_KEY_ATTESTATION_USER_AUTHENTICATION: 'iso_18045_moderate',
    },
  });
  unattested = await startWalletServer({
    clock: main.clock,
    env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca, ...attester },
  });
});
afterAll(async () => {
  await unattested.close();
  await wallet.close();
  await main.close();
});

const call = async (session: string, path: string, body?: unknown) => {
  const res = await fetch(`${wallet.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-wallet-session': session, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('wallet OID4VCI client: HAIP, DPoP nonces, encryption', () => {
  it('HAIP mdoc: client attestation with a challenge, one key attestation for every proof key, DPoP nonce retries on both sides, JWE both ways', async () => {
    expect((await call('haip-1', '/api/session')).body.haip_enabled).toBe(true);
    const issued = await call('haip-1', '/api/issue', {
      credential_configuration_id: 'MobileDrivingLicenceMsoMdocHAIP',
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const exchanges = issued.body._protocol_exchanges as Array<{
      step: string;
      status: number;
      note?: string;
      request?: { body?: unknown };
    }>;
    // AS (400) and RS (401) nonce challenges, each answered by one retry.
    expect(exchanges.filter((e) => e.note?.startsWith('use_dpop_nonce')).map((e) => [e.step, e.status])).toEqual(
      expect.arrayContaining([
        ['token', 400],
        ['credential', 401],
      ]),
    );
    expect(exchanges.filter((e) => e.step === 'challenge').length).toBeGreaterThan(0);
    expect(exchanges.find((e) => e.step === 'credential' && e.status === 200)?.request?.body).toBe('(compact JWE)');
    const proofs = issued.body._looking_glass_events.filter((e: { kind: string }) => e.kind === 'openid4vci-proof+jwt');
    expect(proofs.length).toBe(2);
    expect(
      proofs.every((p: { header: { key_attestation?: string } }) => typeof p.header.key_attestation === 'string'),
    ).toBe(true);
    expect(proofs[0].payload.iss).toBe('portico-wallet');
    const status = (await (await fetch(issued.body.issuer_status_uri)).json()) as Record<string, any>;
    expect(status).toMatchObject({
      attested: true,
      challenge_used: true,
      token_type: 'DPoP',
      request_encrypted: true,
      response_encrypted: true,
      key_attestation: { key_storage: expect.any(Array) },
    });
    expect(status.dpop_nonce_challenges).toBeGreaterThanOrEqual(2);
    const view = (await call('haip-1', '/api/session')).body;
    expect(view.credentials.find((c: { active: boolean }) => c.active)).toMatchObject({
      format: 'mso_mdoc',
      holder_key_thumbprint: view.device_key_thumbprint,
    });
  });

  it('key attestation levels are only claimed when configured: without them the issuer refuses the HAIP mdoc (invalid_proof)', async () => {
    const res = await fetch(`${unattested.url}/api/issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-session': 'levels' },
      body: JSON.stringify({ credential_configuration_id: 'MobileDrivingLicenceMsoMdocHAIP' }),
    });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({
      error: 'upstream_error',
      upstream_status: 400,
      upstream_error: 'invalid_proof',
    });
  });

  it('HAIP SD-JWT VC through the authorization code flow with the same attestation at PAR and token', async () => {
    const started = await call('haip-2', '/api/import', {
      credential_issuer: `${main.url}/oid4vci`,
      credential_configuration_id: 'UniversityDegreeCredentialHAIP',
    });
    expect(started.body.status, JSON.stringify(started.body)).toBe('authorization_required');
    const par = started.body._protocol_exchanges.filter((e: { step: string }) => e.step === 'par');
    expect(par.at(-1).status).toBe(201);
    const { authorizeAsBrowser } = await import('../../support/browser-like.ts');
    const landed = await authorizeAsBrowser(started.body.authorization_url);
    const back = await fetch(landed.location!, { redirect: 'manual' });
    const location = new URL(back.headers.get('location')!, wallet.url);
    expect(location.searchParams.get('oid4vci_status'), location.searchParams.get('oid4vci_message') ?? '').toBe(
      'success',
    );
    const view = (await call('haip-2', '/api/session')).body;
    expect(view.credentials.find((c: { active: boolean }) => c.active)).toMatchObject({
      format: 'dc+sd-jwt',
      credential_configuration_id: 'UniversityDegreeCredentialHAIP',
    });
  });

  it('deferred under DPoP nonces and required encryption: the wallet waits past two nonce windows, so the deferred endpoint asks again (401) and the retry carries the new nonce', async () => {
    const attester = (
      (await (await fetch(`${main.url}/oid4vci/demo/attester`)).json()) as { env: Record<string, string> }
    ).env;
    const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
    // The RS nonce is good for the current and the previous minute; the wait below outlasts both.
    const patient = await startWalletServer({
      clock: main.clock,
      env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca, ...attester },
      wallet: { wait: async () => main.clock.advance(130_000) },
    });
    try {
      const res = await fetch(`${patient.url}/api/issue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-wallet-session': 'deferred-nonce' },
        body: JSON.stringify({ credential_configuration_id: 'UniversityDegreeCredential', deferred: true }),
      });
      const body = (await res.json()) as Record<string, any>;
      expect(
        res.status,
        JSON.stringify(
          body._protocol_exchanges.filter((e: { step: string }) => e.step === 'deferred' || e.step === 'credential'),
        ),
      ).toBe(200);
      const hops = (
        body._protocol_exchanges as Array<{ step: string; status: number; note?: string; request?: { body?: unknown } }>
      ).filter((e) => e.step === 'deferred');
      expect(hops.map((e) => e.status)).toEqual([401, 200]);
      expect(hops[0].note).toMatch(/^use_dpop_nonce/);
      expect(hops.every((e) => e.request?.body === '(compact JWE)')).toBe(true);
    } finally {
      await patient.close();
    }
  });
});
