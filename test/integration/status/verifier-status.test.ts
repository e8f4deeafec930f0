import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import {
  holderKey,
  issueWithOffer,
  presentJwtVc,
  presentLdpVc,
  presentMdoc,
  presentSdJwt,
  type Answering,
  type HolderKey,
  asCreator,
} from '../../support/holder.ts';

// Issue 34: the verifier resolves every presented credential's status, names each list check, and fails
// revoked (credential_revoked), suspended (credential_suspended) and unreadable lists (status_unavailable).
let server: TestServer;
let holder: HolderKey;
const nowS = () => Math.floor(server.clock.now() / 1000);
/** Past the lists' ttl: the verifier's cache no longer answers. */
const pastTtl = () => server.clock.advance(301_000);
beforeAll(async () => {
  server = await startMainServer();
  holder = await holderKey();
});
afterAll(async () => {
  await server.close();
});

const post = (path: string, init: RequestInit) => exchange(server.url, path, init);
const QUERIES: Record<string, Record<string, unknown>> = {
  'dc+sd-jwt': { id: 'q', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] },
  mso_mdoc: { id: 'q', format: 'mso_mdoc', claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }] },
  jwt_vc_json: { id: 'q', format: 'jwt_vc_json', claims: [{ path: ['credentialSubject', 'degree'] }] },
  ldp_vc: { id: 'q', format: 'ldp_vc', claims: [{ path: ['credentialSubject', 'degree'] }] },
};
const CONFIGURATION: Record<string, string> = {
  'dc+sd-jwt': 'UniversityDegreeCredential',
  mso_mdoc: 'MobileDrivingLicenceMsoMdoc',
  jwt_vc_json: 'UniversityDegreeCredentialJWT',
  ldp_vc: 'UniversityDegreeCredentialLDP',
};

/** Presents `credential` of `format` to a fresh request and returns the result document. */
async function verify(format: string, credential: unknown) {
  const created = await post('/oid4vp/request/create', json({ dcql_query: { credentials: [QUERIES[format]] } }));
  expect(created.status).toBe(201);
  const c = created.body;
  const to: Answering = { clientId: c.client_id, nonce: c.nonce, responseUri: c.response_uri, nowS: nowS() };
  const vp =
    format === 'dc+sd-jwt'
      ? await presentSdJwt(credential as string, holder, to)
      : format === 'mso_mdoc'
        ? await presentMdoc(credential as string, holder, to, ['family_name'])
        : format === 'jwt_vc_json'
          ? await presentJwtVc(credential as string, holder, to)
          : await presentLdpVc(credential as Record<string, unknown>, holder, to);
  const answered = await post('/oid4vp/response', form({ vp_token: JSON.stringify({ q: [vp] }), state: c.state }));
  expect(answered.status).toBe(200);
  return (await post(`/oid4vp/result/${c.transaction_id}`, { method: 'GET' })).body;
}
const setStatus = async (offerId: string, status: string) =>
  post(`/oid4vci/offers/${offerId}/credentials/0/status`, json({ status }, asCreator(offerId)));
const checksOf = (doc: any) =>
  (doc.checks as Array<{ check: string; verdict: string }>).map((c) => `${c.check}:${c.verdict}`);

describe('the verifier checks credential status', () => {
  for (const format of ['dc+sd-jwt', 'mso_mdoc', 'jwt_vc_json', 'ldp_vc'])
    it(`${format}: valid, revoked, suspended, reinstated, revoked again (409)`, async () => {
      const { credential, offerId } = await issueWithOffer(server.url, CONFIGURATION[format], holder, nowS());
      pastTtl();
      const valid = await verify(format, credential);
      expect(valid.status, JSON.stringify(valid.reasons)).toBe('verified');
      expect(checksOf(valid)).toEqual(
        expect.arrayContaining([
          'status_list_typ:passed',
          'status_list_signature:passed',
          'status_list_sub:passed',
          'status_value:passed',
        ]),
      );
      const shown = valid.presentations.q[0].status;
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.every((s: any) => s.status === 'VALID')).toBe(true);

      expect((await setStatus(offerId, 'suspended')).status).toBe(200);
      // Within the list's ttl the verifier answers from its cache, as the draft lets it (§12.5).
      const cached = await verify(format, credential);
      expect(cached.status).toBe('verified');
      expect(cached.presentations.q[0].status[0].cached).toBe(true);
      pastTtl();
      const suspended = await verify(format, credential);
      expect(suspended.status).toBe('rejected');
      expect(suspended.reasons[0]).toMatchObject({ credential_query_id: 'q', check: 'credential_suspended' });

      expect((await setStatus(offerId, 'valid')).status).toBe(200);
      pastTtl();
      expect((await verify(format, credential)).status).toBe('verified');

      expect((await setStatus(offerId, 'revoked')).status).toBe(200);
      pastTtl();
      const revoked = await verify(format, credential);
      expect(revoked.status).toBe('rejected');
      expect(revoked.reasons[0]).toMatchObject({ check: 'credential_revoked' });
      expect(checksOf(revoked)).toContain('credential_revoked:failed');

      const again = await setStatus(offerId, 'valid');
      expect(again.status).toBe(409);
      pastTtl();
      expect((await verify(format, credential)).reasons[0].check).toBe('credential_revoked');
    });
});
