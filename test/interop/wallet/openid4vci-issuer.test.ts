import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPeerIssuer, type PeerIssuer } from '../../../scripts/bench/support/peer-issuer-app.ts';
import { WALLET_BATCH_CAP } from '../../../services/wallet/issuance/proofs.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

/**
 * Issue 18 interop: an issuer and authorization server the wallet was not written with, built from
 * @openid4vc/oauth2 and @openid4vc/openid4vci (scripts/bench/support/peer-issuer-app.ts) on a loopback
 * port configured as the wallet's trusted issuer. Each case stages what that issuer does and would fail
 * if the wallet rule it names were removed.
 */
let peer: PeerIssuer;
let wallet: TestWallet;
beforeAll(async () => {
  const privateJwk = async () => exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);
  // HAIP material of the test's own: the peer trusts this attester's key at PAR and token.
  const attester = await privateJwk();
  const { d: _d, ...attesterPublic } = attester;
  peer = await startPeerIssuer({ attesterJwk: attesterPublic as never });
  wallet = await startWalletServer({
    env: {
      BASE_URL: 'http://127.0.0.1:1',
      WALLET_ISSUER_BASE_URL: peer.url,
      WALLET_CLIENT_ATTESTATION_ATTESTER_JWK_JSON: JSON.stringify(attester),
      WALLET_CLIENT_ATTESTATION_KEY_ATTESTATION_JWK_JSON: JSON.stringify(await privateJwk()),
    },
  });
}, 30_000);
afterAll(async () => {
  await wallet.close();
  await peer.close();
});
beforeEach(() => {
  for (const key of Object.keys(peer.options))
    if (key !== 'attesterJwk') delete peer.options[key as keyof typeof peer.options];
});

/** The person's browser: the authorization URL at the peer, then the peer's redirect to the wallet callback, then where the wallet sends the app. */
async function authorizeInBrowser(authorizationUrl: string): Promise<URL> {
  const atPeer = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(atPeer.status).toBe(302);
  const callback = await fetch(atPeer.headers.get('location')!, { redirect: 'manual' });
  expect(callback.status).toBe(302);
  return new URL(callback.headers.get('location')!, wallet.url);
}

let counter = 0;
const newSession = () => `peer-issuer-${++counter}`;
const call = async (session: string, path: string, body?: unknown) => {
  const res = await fetch(`${wallet.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-wallet-session': session, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const hits = (path: string) => peer.hits.get(path) ?? 0;
const snapshot = () => new Map(peer.hits);
const callsSince = (before: Map<string, number>) =>
  [...peer.hits]
    .filter(([path, n]) => n !== (before.get(path) ?? 0))
    .map(([path]) => path)
    .sort();

describe('interop: our wallet against an issuer built from @openid4vc/openid4vci and @openid4vc/oauth2', () => {
  it('pre-authorized offer by value: DPoP-bound token, SD-JWT VC verified and bound to the holder key, credential_accepted notified with DPoP and an interaction id', async () => {
    const s = newSession();
    const issued = await call(s, '/api/import', { offer: await peer.createOffer() });
    expect(issued.status, JSON.stringify(issued.body).slice(0, 500)).toBe(200);
    expect(issued.body.status).toBe('issued');
    const view = (await call(s, '/api/session')).body;
    expect(view.credentials).toHaveLength(1);
    expect(view.credentials[0]).toMatchObject({
      format: 'dc+sd-jwt',
      active: true,
      holder_key_thumbprint: view.wallet_key_thumbprint,
      claims: expect.objectContaining({ degree: 'Bachelor of Science' }),
    });
    expect(peer.notifications.at(-1)).toMatchObject({
      event: 'credential_accepted',
      dpop: true,
      interactionId: expect.any(String),
    });
  });

  it('behaviour 3: the AS answers 400 and the RS 401 use_dpop_nonce; the wallet retries each once with the nonce', async () => {
    peer.options.dpopNonce = true;
    const before = { ...peer.challenges };
    const issued = await call(newSession(), '/api/import', { offer: await peer.createOffer() });
    expect(issued.status, JSON.stringify(issued.body).slice(0, 500)).toBe(200);
    expect(peer.challenges.as - before.as).toBe(1);
    expect(peer.challenges.rs - before.rs).toBe(1); // the notification reuses the RS nonce it learned
    const retried = (issued.body._protocol_exchanges as Array<{ step: string; status: number }>)
      .filter((e) => e.status === 400 || e.status === 401)
      .map((e) => [e.step, e.status]);
    expect(retried).toEqual([
      ['token', 400],
      ['credential', 401],
    ]);
  });

  it('behaviour 5: batch_size above the wallet cap, credentials answered in reverse order, matched by holder key', async () => {
    peer.options.batchSize = 10;
    peer.options.reverseBatch = true;
    const s = newSession();
    const issued = await call(s, '/api/import', { offer: await peer.createOffer() });
    expect(issued.status, JSON.stringify(issued.body).slice(0, 500)).toBe(200);
    expect(peer.batches.at(-1)).toEqual({ proofs: WALLET_BATCH_CAP, distinctKeys: WALLET_BATCH_CAP });
    const view = (await call(s, '/api/session')).body;
    expect(view.credentials).toHaveLength(WALLET_BATCH_CAP);
    const active = view.credentials.filter((c: { active: boolean }) => c.active);
    expect(active).toHaveLength(1);
    expect(active[0]).toMatchObject({ holder_key_thumbprint: view.wallet_key_thumbprint, batch_secondary: false });
    const secondaries = view.credentials.filter((c: { batch_secondary: boolean }) => c.batch_secondary);
    expect(new Set(secondaries.map((c: { holder_key_thumbprint: string }) => c.holder_key_thumbprint)).size).toBe(
      WALLET_BATCH_CAP - 1,
    );
    expect(
      secondaries.every(
        (c: { holder_key_thumbprint: string }) => c.holder_key_thumbprint !== view.wallet_key_thumbprint,
      ),
    ).toBe(true);
  });

  it('behaviour 9: issuer metadata naming another credential_issuer fails closed before the authorization server is asked', async () => {
    peer.options.credentialIssuerOverride = 'https://issuer.example/oid4vci';
    const before = snapshot();
    const failed = await call(newSession(), '/api/import', { offer: await peer.createOffer() });
    expect(failed.status).toBe(400);
    expect(failed.body.error).toBe('issuer_mismatch');
    expect(callsSince(before)).toEqual(['/.well-known/openid-credential-issuer/oid4vci']);
  });

  it('behaviour 4: an authorization server document naming another issuer ends the exchange; no token or other call follows', async () => {
    peer.options.asIssuerOverride = 'https://as.example';
    const before = snapshot();
    const failed = await call(newSession(), '/api/import', { offer: await peer.createOffer() });
    expect(failed.status).toBe(400);
    expect(failed.body.error).toBe('discovery_issuer_mismatch');
    expect(callsSince(before)).toEqual([
      '/.well-known/oauth-authorization-server/oid4vci',
      '/.well-known/openid-credential-issuer/oid4vci',
    ]);
  });

  it('behaviour 4, FAPI 2.0 discovery: only openid-configuration is fetched, and a mismatching issuer stops before PAR', async () => {
    peer.options.asIssuerOverride = 'https://as.example';
    const before = snapshot();
    const failed = await call(newSession(), '/api/import', {
      discovery_url: `${peer.issuer}/.well-known/openid-configuration`,
      resource_endpoint: `${peer.issuer}/credential`,
      scope: 'vc:university_degree',
    });
    expect(failed.status).toBe(400);
    expect(failed.body.error).toBe('discovery_issuer_mismatch');
    expect(callsSince(before)).toEqual(['/oid4vci/.well-known/openid-configuration']);
    expect(hits('/.well-known/oauth-authorization-server/oid4vci')).toBe(
      before.get('/.well-known/oauth-authorization-server/oid4vci') ?? 0,
    );
  });

  it('behaviour 11: issuer keys come from jwks_uri; /.well-known/jwt-vc-issuer is never fetched, so a credential only its key verifies is refused', async () => {
    const ok = await call(newSession(), '/api/import', { offer: await peer.createOffer() });
    expect(ok.status).toBe(200);
    expect(hits('/oid4vci/jwks')).toBeGreaterThan(0);
    peer.options.signWithJwtVcIssuerKey = true;
    const s = newSession();
    const refused = await call(s, '/api/import', { offer: await peer.createOffer() });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'invalid_credential' });
    expect(refused.body.error_description).toMatch(/signature/);
    expect((await call(s, '/api/session')).body.credentials).toHaveLength(0);
    expect(hits('/.well-known/jwt-vc-issuer/oid4vci')).toBe(0);
  });

  it('behaviours 1 and 12, wallet-initiated: configurations listed, then PAR with PKCE, client attestation and DPoP; the authorize URL carries only client_id and request_uri; the same attestation at the token endpoint', async () => {
    peer.options.dpopNonce = true;
    const s = newSession();
    const listed = await call(s, '/api/import', {
      credential_issuer: `${peer.issuer}/.well-known/openid-credential-issuer`,
    });
    expect(listed.status, JSON.stringify(listed.body).slice(0, 300)).toBe(200);
    expect(listed.body.status).toBe('configuration_selection_required');
    expect(
      listed.body.credential_configurations.map(
        (c: { credential_configuration_id: string }) => c.credential_configuration_id,
      ),
    ).toEqual(['UniversityDegreeCredential', 'MobileDrivingLicenceMsoMdoc']);
    expect(hits('/oid4vci/par')).toBe(0);
    const started = await call(s, '/api/import', {
      credential_issuer: peer.issuer,
      credential_configuration_id: 'UniversityDegreeCredential',
    });
    expect(started.status, JSON.stringify(started.body).slice(0, 300)).toBe(200);
    expect(started.body.status).toBe('authorization_required');
    expect([...new URL(started.body.authorization_url).searchParams.keys()].sort()).toEqual([
      'client_id',
      'request_uri',
    ]);
    const landed = await authorizeInBrowser(started.body.authorization_url);
    expect(Object.fromEntries(landed.searchParams)).toMatchObject({ oid4vci_status: 'success' });
    expect(peer.authorizeQueries.at(-1)).toEqual(['client_id', 'request_uri']);
    const view = (await call(s, '/api/session')).body;
    expect(view.credentials).toHaveLength(1);
    expect(view.credentials[0]).toMatchObject({
      format: 'dc+sd-jwt',
      holder_key_thumbprint: view.wallet_key_thumbprint,
    });
  });

  it('the protected-resource mode: FAPI 2.0 discovery, PAR with scope, PKCE, attestation and DPoP, then the resource read with the DPoP-bound token (nonce retry included)', async () => {
    peer.options.dpopNonce = true;
    const s = newSession();
    const before = snapshot();
    const started = await call(s, '/api/import', {
      discovery_url: `${peer.issuer}/.well-known/openid-configuration`,
      resource_endpoint: `${peer.issuer}/resource`,
      scope: 'vc:university_degree',
    });
    expect(started.status, JSON.stringify(started.body).slice(0, 300)).toBe(200);
    expect(started.body.status).toBe('authorization_required');
    const landed = await authorizeInBrowser(started.body.authorization_url);
    expect(Object.fromEntries(landed.searchParams)).toEqual({
      oid4vci_status: 'success',
      oid4vci_message: 'the protected resource answered HTTP 200',
    });
    expect(peer.resourceReads.at(-1)).toEqual({
      scope: 'vc:university_degree',
      dpop: true,
      interactionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(callsSince(before)).toEqual([
      '/oid4vci/.well-known/openid-configuration',
      '/oid4vci/authorize',
      '/oid4vci/par',
      '/oid4vci/resource',
      '/oid4vci/token',
    ]);
    expect(hits('/.well-known/oauth-authorization-server/oid4vci')).toBe(
      before.get('/.well-known/oauth-authorization-server/oid4vci') ?? 0,
    );
  });

  it('the protected-resource mode needs the scope and an http(s) resource endpoint', async () => {
    const bad = await call(newSession(), '/api/import', {
      discovery_url: `${peer.issuer}/.well-known/openid-configuration`,
      resource_endpoint: 'file:///etc/passwd',
      scope: 'a',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
  });
});
