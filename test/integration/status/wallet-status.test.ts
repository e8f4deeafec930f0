import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';
import { asCreator, rememberOffer } from '../../support/holder.ts';

// Issue 34: the wallet shows each held credential's status (through its guard, kept for the ttl), never offers
// a revoked one to a DCQL query while still listing it, and marks a suspended one on the consent page.
let main: TestServer;
let wallet: TestWallet;
beforeAll(async () => {
  main = await startMainServer();
  const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  const verifierCa = await (await fetch(`${main.url}/oid4vp/ca.pem`)).text();
  wallet = await startWalletServer({
    clock: main.clock,
    env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca, WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM: verifierCa },
  });
});
afterAll(async () => {
  await wallet.close();
  await main.close();
});

const call = async (s: string, path: string, body?: unknown) => {
  const res = await fetch(`${wallet.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-wallet-session': s, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, text: '' };
};
const pastTtl = () => main.clock.advance(301_000);
const setStatus = (offerId: string, status: string) =>
  exchange(main.url, `/oid4vci/offers/${offerId}/credentials/0/status`, json({ status }, asCreator(offerId)));
/** The wallet takes an offer of ours; returns the offer id and the stored credential's id. */
async function take(s: string, configuration: string) {
  const offer = (await exchange(main.url, '/oid4vci/offers', json({ credential_configuration_ids: [configuration] })))
    .body;
  rememberOffer(offer);
  const imported = await call(s, '/api/import', { offer: offer.offer_url });
  expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(200);
  return { offerId: offer.offer_id as string, credentialId: imported.body.credential_ids[0] as string };
}
const statusIn = async (s: string, id: string) =>
  (await call(s, '/api/credentials')).body.credentials.find((c: any) => c.credential_id === id).status;

describe('credential status in the wallet', () => {
  for (const configuration of [
    'UniversityDegreeCredential',
    'MobileDrivingLicenceMsoMdoc',
    'UniversityDegreeCredentialJWT',
  ])
    it(`${configuration}: valid, suspended, valid, revoked, each seen in /api/credentials`, async () => {
      const s = `status-${configuration}`;
      const { offerId, credentialId } = await take(s, configuration);
      const valid = await statusIn(s, credentialId);
      expect(valid.status).toBe('valid');
      expect(valid.references.length).toBeGreaterThan(0);
      for (const [status, seen] of [
        ['suspended', 'suspended'],
        ['valid', 'valid'],
        ['revoked', 'revoked'],
      ]) {
        expect((await setStatus(offerId, status)).status).toBe(200);
        pastTtl();
        expect((await statusIn(s, credentialId)).status).toBe(seen);
      }
      expect((await setStatus(offerId, 'valid')).status).toBe(409);
    });

  it('never offers a revoked credential to a DCQL query, still lists it, and marks a suspended one at consent', async () => {
    const s = 'status-dcql';
    const first = await take(s, 'UniversityDegreeCredential');
    const query = { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] };
    const created = async () =>
      (await exchange(main.url, '/oid4vp/request/create', json({ client_id_prefix: 'x509_hash', dcql_query: query })))
        .body;
    expect((await setStatus(first.offerId, 'suspended')).status).toBe(200);
    pastTtl();
    const suspended = await call(s, '/api/resolve', { uri: (await created()).authorization_request_uri });
    expect(suspended.body.credential_matches.matches.degree[0]).toMatchObject({
      credential_id: first.credentialId,
      status: 'suspended',
    });
    const page = await fetch(`${wallet.url}/consent/${suspended.body.request_id}`, {
      headers: { 'x-wallet-session': s, accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('suspended by its issuer');

    expect((await setStatus(first.offerId, 'revoked')).status).toBe(200);
    pastTtl();
    const revoked = await call(s, '/api/resolve', { uri: (await created()).authorization_request_uri });
    expect(revoked.body.credential_matches.satisfiable).toBe(false);
    expect(revoked.body.credential_matches.withheld).toEqual([
      { credential_id: first.credentialId, status: 'revoked' },
    ]);
    const presented = await call(s, '/api/present', { request_id: revoked.body.request_id });
    expect(presented.body.error).toBe('no_matching_credential');
    const listed = (await call(s, '/api/credentials')).body.credentials.map((c: any) => c.credential_id);
    expect(listed).toContain(first.credentialId);

    const second = await take(s, 'UniversityDegreeCredential');
    const again = await call(s, '/api/resolve', { uri: (await created()).authorization_request_uri });
    expect(again.body.credential_matches.matches.degree.map((m: any) => m.credential_id)).toEqual([
      second.credentialId,
    ]);
  });

  // Issue 45 item 12: a raw import resolves its lists with the credential's own trust (its issuer's jwks_uri
  // through the guard, its x5chain to a trusted IACA), not only keys met at issuance.
  for (const [configuration, format] of [
    ['UniversityDegreeCredential', 'dc+sd-jwt'],
    ['MobileDrivingLicenceMsoMdoc', 'mso_mdoc'],
    ['UniversityDegreeCredentialJWT', 'jwt_vc_json'],
  ])
    it(`a raw-imported ${configuration}: valid, then revoked, and a revoked one is not offered`, async () => {
      const s = `raw-${configuration}`;
      const { offerId, credentialId } = await take(s, configuration);
      const raw = (await call(s, '/api/session')).body.credentials.find(
        (c: any) => c.credential_id === credentialId,
      ).credential;
      const imported = await call(s, '/api/import', { credential: raw, format });
      expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(200);
      const copy = imported.body.credential_ids[0] as string;
      expect((await statusIn(s, copy)).status).toBe('valid');
      expect((await setStatus(offerId, 'revoked')).status).toBe(200);
      pastTtl();
      expect((await statusIn(s, copy)).status).toBe('revoked');
    });
});
