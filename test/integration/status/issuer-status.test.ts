import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCbor, parseIssuerSigned } from '../../../services/credentials/mdoc/index.ts';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueWithOffer, type HolderKey, asCreator } from '../../support/holder.ts';

// Issue 34: every credential carries a status reference; the issuer serves its lists and changes one credential's status.
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

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });
const change = (offerId: string, n: number | string, body: unknown) =>
  exchange(server.url, `/oid4vci/offers/${offerId}/credentials/${n}/status`, json(body, asCreator(offerId)));
const payloadOf = (jwt: string) => decodeJwt(jwt.split('~')[0]);

describe('credential status at the issuer', () => {
  it('writes a status_list reference into an SD-JWT VC and serves the Status List Token it names', async () => {
    const { credential, offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    const status = payloadOf(credential as string).status as { status_list: { idx: number; uri: string } };
    expect(status.status_list.uri).toMatch(new RegExp(`^${server.url}/oid4vci/status-lists/[A-Za-z0-9_-]+$`));
    expect(Number.isInteger(status.status_list.idx)).toBe(true);
    const served = await get(new URL(status.status_list.uri).pathname);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/statuslist+jwt');
    expect(served.headers.get('access-control-allow-origin')).toBe('*');
    expect(Number(/max-age=(\d+)/.exec(served.headers.get('cache-control') ?? '')?.[1])).toBeLessThanOrEqual(300);
    const token = await served.text();
    expect(decodeProtectedHeader(token)).toMatchObject({ typ: 'statuslist+jwt', alg: 'ES256' });
    const jwks = (await (await get('/oid4vci/.well-known/jwks.json')).json()) as { keys: Array<{ kid: string }> };
    const key = jwks.keys.find((k) => k.kid === decodeProtectedHeader(token).kid)!;
    const { payload } = await jwtVerify(token, await importJWK(key as never, 'ES256'));
    expect(payload).toMatchObject({ sub: status.status_list.uri, ttl: 300, status_list: { bits: 2 } });
    expect(payload.exp! > payload.iat!).toBe(true);
    const doc = (await exchange(server.url, `/oid4vci/offers/${offerId}/status`, { method: 'GET' })).body;
    expect(doc.credentials).toEqual([
      {
        n: 0,
        format: 'dc+sd-jwt',
        configuration_id: 'UniversityDegreeCredential',
        status: 'valid',
        status_list: status.status_list,
      },
    ]);
  });

  it('puts the reference in the mdoc MSO and W3C credentialStatus entries for both purposes', async () => {
    const mdoc = (await issueWithOffer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS())).credential;
    const issuerSigned = parseIssuerSigned(Buffer.from(mdoc as string, 'base64url'));
    const mso = decodeCbor((decodeCbor(issuerSigned.issuerAuth[2]!) as { value: Uint8Array }).value) as Map<
      string,
      any
    >;
    const reference = mso.get('status').get('status_list');
    expect(reference.get('uri')).toMatch(/\/oid4vci\/status-lists\//);
    expect(Number.isInteger(reference.get('idx'))).toBe(true);

    const vc = (await issueWithOffer(server.url, 'UniversityDegreeCredentialJWT', holder, nowS())).credential as string;
    const entries = (payloadOf(vc).vc as { credentialStatus: Array<Record<string, string>> }).credentialStatus;
    expect(entries.map((e) => e.statusPurpose)).toEqual(['revocation', 'suspension']);
    for (const entry of entries) {
      expect(entry.type).toBe('BitstringStatusListEntry');
      expect(entry.statusListCredential).toMatch(new RegExp(`/oid4vci/status-lists/w3c/${entry.statusPurpose}/`));
      const list = await get(new URL(entry.statusListCredential).pathname);
      expect(list.status).toBe(200);
      const claims = decodeJwt(await list.text()) as { vc: Record<string, any> };
      expect(claims.vc.type).toContain('BitstringStatusListCredential');
      expect(claims.vc.id).toBe(entry.statusListCredential);
      expect(claims.vc.credentialSubject).toMatchObject({ statusPurpose: entry.statusPurpose });
      expect(claims.vc.credentialSubject.encodedList).toMatch(/^u[A-Za-z0-9_-]+$/);
    }
  });

  it('gives every credential its own index, never two the same', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const { credential } = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
      const { status_list } = (payloadOf(credential as string).status as any) ?? {};
      seen.add(`${status_list.uri}#${status_list.idx}`);
    }
    expect(seen.size).toBe(6);
  });

  it('changes a status: suspended, valid, revoked, and then refuses (409)', async () => {
    const { offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    const suspended = await change(offerId, 0, { status: 'suspended' });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ n: 0, status: 'suspended' });
    expect((await change(offerId, 0, { status: 'valid' })).body.status).toBe('valid');
    expect((await change(offerId, 0, { status: 'revoked' })).body.status).toBe('revoked');
    const again = await change(offerId, 0, { status: 'valid' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('invalid_request');
    const events = (await exchange(server.url, `/api/streams/issuance:${offerId}/export`, { method: 'GET' })).body;
    const changes = (events.events as Array<{ type: string; data: any }>).filter(
      (e) => e.type === 'credential.status_changed',
    );
    expect(changes.map((e) => e.data.status)).toEqual(['suspended', 'valid', 'revoked']);
  });

  it("[issue 45 item 34] only the offer creator's status_token changes a status; the log keeps its hash", async () => {
    const { offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    const other = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    const path = `/oid4vci/offers/${offerId}/credentials/0/status`;
    const bare = await exchange(server.url, path, json({ status: 'revoked' }));
    expect(bare.status).toBe(401);
    expect(bare.body.error).toBe('invalid_token');
    expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(bare.headers.get('www-authenticate')).not.toMatch(/error=/);
    const foreign = await exchange(server.url, path, json({ status: 'revoked' }, asCreator(other.offerId)));
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const basic = await exchange(server.url, path, json({ status: 'revoked' }, { authorization: 'Basic eDp5' }));
    expect(basic.status).toBe(401);
    // Nothing changed: the credential is still valid, and its creator may still act.
    const doc = (await exchange(server.url, `/oid4vci/offers/${offerId}/status`, { method: 'GET' })).body;
    expect(doc.credentials[0].status).toBe('valid');
    expect((await change(offerId, 0, { status: 'suspended' })).status).toBe(200);
    const token = asCreator(offerId).authorization.slice('Bearer '.length);
    const events = (await exchange(server.url, `/api/streams/issuance:${offerId}/export`, { method: 'GET' })).body;
    expect(JSON.stringify(events)).not.toContain(token);
    expect(JSON.stringify(events)).toContain('status_token_hash');
  });

  it('answers 404 for an unknown n, offer or list, and 400 for a bad body', async () => {
    const { offerId } = await issueWithOffer(server.url, 'UniversityDegreeCredential', holder, nowS());
    expect((await change(offerId, 1, { status: 'revoked' })).status).toBe(404);
    expect((await change(offerId, 'x', { status: 'revoked' })).status).toBe(404);
    // An unknown offer answers like a wrong token: an offer id alone reveals nothing.
    expect((await change('no-such-offer', 0, { status: 'revoked' })).status).toBe(401);
    for (const body of [{}, { status: 'gone' }, { status: 1 }, []]) {
      const refused = await change(offerId, 0, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_request');
    }
    const unknownList = await get('/oid4vci/status-lists/nosuchlist');
    expect(unknownList.status).toBe(404);
    expect(((await unknownList.json()) as { error: string }).error).toBe('not_found');
    expect((await get('/oid4vci/status-lists/w3c/other/nosuchlist')).status).toBe(404);
  });
});
