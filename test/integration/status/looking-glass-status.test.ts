import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueWithOffer, type HolderKey, asCreator } from '../../support/holder.ts';

// Issue 34: the looking glass decodes Status List Tokens (JWT and CWT) and W3C status list credentials, and
// shows a credential's current status.
let server: TestServer;
let holder: HolderKey;
const nowS = () => Math.floor(server.clock.now() / 1000);
beforeAll(async () => {
  server = await startMainServer();
  holder = await holderKey();
});
afterAll(async () => {
  await server.close();
});

const decodeList = (token: string, idx?: number) =>
  exchange(
    server.url,
    `/api/lookingglass/decode/status-list${idx === undefined ? '' : `?idx=${idx}`}`,
    json({ token }),
  );
const referenceOf = async (offerId: string) =>
  (await exchange(server.url, `/oid4vci/offers/${offerId}/status`, { method: 'GET' })).body.credentials[0].status_list;

describe('the looking glass and credential status', () => {
  it('decodes the JWT and CWT lists: bits, size, counts and the value at ?idx=, signature verified', async () => {
    const { offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    await exchange(
      server.url,
      `/oid4vci/offers/${offerId}/credentials/0/status`,
      json({ status: 'suspended' }, asCreator(offerId)),
    );
    const { uri, idx } = await referenceOf(offerId);
    const path = new URL(uri).pathname;
    const jwt = await (await fetch(`${server.url}${path}`)).text();
    const fromJwt = await decodeList(jwt, idx);
    expect(fromJwt.status).toBe(200);
    expect(fromJwt.body).toMatchObject({
      format: 'statuslist+jwt',
      bits: 2,
      size: 131_072,
      sub: uri,
      at: { idx, value: 2, status: 'SUSPENDED' },
      signature: { verified: true },
    });
    expect(fromJwt.body.counts.SUSPENDED).toBeGreaterThanOrEqual(1);
    expect(fromJwt.body.counts.VALID + fromJwt.body.counts.SUSPENDED + fromJwt.body.counts.INVALID).toBeLessThanOrEqual(
      131_072,
    );
    const cwt = Buffer.from(
      await (await fetch(`${server.url}${path}`, { headers: { accept: 'application/statuslist+cwt' } })).arrayBuffer(),
    );
    for (const encoded of [cwt.toString('base64url'), cwt.toString('hex')]) {
      const fromCwt = await decodeList(encoded, idx);
      expect(fromCwt.status).toBe(200);
      expect(fromCwt.body).toMatchObject({
        format: 'statuslist+cwt',
        typ: 'application/statuslist+cwt',
        bits: 2,
        size: 131_072,
        at: { idx, status: 'SUSPENDED' },
        signature: { verified: true },
      });
      expect(fromCwt.body.counts).toEqual(fromJwt.body.counts);
    }
    expect((await decodeList(jwt, 200_000)).body.at.detail).toMatch(/outside/);
  });

  it('decodes a W3C status list credential and shows a credential current status', async () => {
    const { credential, offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredentialJWT', holder, nowS());
    await exchange(
      server.url,
      `/oid4vci/offers/${offerId}/credentials/0/status`,
      json({ status: 'revoked' }, asCreator(offerId)),
    );
    const { idx } = await referenceOf(offerId);
    const decoded = await exchange(server.url, '/api/lookingglass/decode/credential', json({ credential }));
    expect(decoded.status).toBe(200);
    const references = decoded.body.status.references as any[];
    expect(references.map((r) => [r.status_purpose, r.status])).toEqual([
      ['revocation', 'INVALID'],
      ['suspension', 'VALID'],
    ]);
    expect(references[0]).toMatchObject({ failed: 'credential_revoked', idx });
    const list = await (await fetch(references[0].status_list_credential)).text();
    const fromW3c = await decodeList(list, idx);
    expect(fromW3c.body).toMatchObject({
      format: 'BitstringStatusListCredential',
      status_purpose: 'revocation',
      bits: 1,
      size: 131_072,
      at: { idx, value: 1 },
      signature: { verified: true },
    });

    const sdJwt = (await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS())).credential;
    const shown = await exchange(server.url, '/api/lookingglass/decode/credential', json({ credential: sdJwt }));
    expect(shown.body.status.references[0]).toMatchObject({ type: 'status_list', status: 'VALID' });
    expect(shown.body.status.references[0].checks_held).toContain('status_list_signature');
    const mdoc = (await issueWithOffer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS())).credential;
    const mdocShown = await exchange(server.url, '/api/lookingglass/decode/credential', json({ credential: mdoc }));
    expect(mdocShown.body.status.references[0]).toMatchObject({ type: 'status_list', status: 'VALID' });
  });

  it('refuses what is not a status list with 400', async () => {
    const agentToken = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    for (const token of [agentToken, 'not a list', 'oA', '{}']) {
      const refused = await decodeList(token);
      expect(refused.status, token).toBe(400);
      expect(refused.body.error).toBe('invalid_request');
    }
    expect(
      (await exchange(server.url, '/api/lookingglass/decode/status-list?idx=-1', json({ token: 'x' }))).status,
    ).toBe(400);
  });
});
