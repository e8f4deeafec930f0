import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueFromOurIssuer, presentMdoc, presentSdJwt, type HolderKey } from '../../support/holder.ts';

// Issue 16: the looking glass decodes a request object and a vp_token.
let server: TestServer;
let holder: HolderKey;
beforeAll(async () => {
  server = await startMainServer();
  holder = await holderKey();
});
afterAll(async () => {
  await server.close();
});

describe('looking glass: OpenID4VP artefacts', () => {
  it('decodes a request object: its kind, the meaning of its claims, and the signature by the x5c leaf', async () => {
    const created = (
      await exchange(
        server.url,
        '/oid4vp/request/create',
        json({ client_id_prefix: 'x509_hash', response_mode: 'direct_post.jwt' }),
      )
    ).body;
    const requestObject = await (await fetch(created.request_uri)).text();
    const decoded = (await exchange(server.url, '/api/lookingglass/decode', json({ token: requestObject }))).body;
    expect(decoded.kind).toMatchObject({ typ: 'oauth-authz-req+jwt', reference: expect.stringContaining('OpenID4VP') });
    // Its x5c chains to this origin's verifier CA: verified (issue 30 item 26: a key we trust).
    expect(decoded.signature).toMatchObject({
      verified: true,
      key_source: 'x5c chain',
      detail: expect.stringContaining(created.client_id.slice('x509_hash:'.length)),
    });
    const meaning = (name: string) => decoded.claims.find((c: { name: string }) => c.name === name)?.meaning;
    expect(meaning('client_id')).toMatch(/prefix/);
    expect(meaning('dcql_query')).toMatch(/credential queries/);
    expect(meaning('client_metadata')).toMatch(/ECDH-ES/);
    // Altered: the leaf no longer verifies it.
    const [h, p, s] = requestObject.split('.');
    const altered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), nonce: 'x' })).toString('base64url')}.${s}`;
    expect(
      (await exchange(server.url, '/api/lookingglass/decode', json({ token: altered }))).body.signature.verified,
    ).toBe(false);
  });

  it('decodes a vp_token: each presentation by its format, a bad one reported in place', async () => {
    const nowS = Math.floor(server.clock.now() / 1000);
    const sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS)) as string;
    const mdl = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS)) as string;
    const to = { clientId: 'x509_hash:abc', nonce: 'n-1', responseUri: `${server.url}/oid4vp/response`, nowS };
    const vpToken = {
      degree: [await presentSdJwt(sdJwt, holder, to, ['degree'])],
      mdl: [await presentMdoc(mdl, holder, to, ['family_name'])],
      broken: ['not a credential'],
    };
    for (const credential of [vpToken, JSON.stringify(vpToken)]) {
      const decoded = (await exchange(server.url, '/api/lookingglass/decode/credential', json({ credential }))).body;
      expect(decoded.format).toBe('vp_token');
      const byId = (id: string) =>
        decoded.presentations.find((p: { credential_query_id: string }) => p.credential_query_id === id);
      expect(byId('degree').decoded.format).toBe('dc+sd-jwt');
      expect(byId('degree').decoded.holder_binding).toMatchObject({
        key_binding_jwt: true,
        verified: true,
        aud: 'x509_hash:abc',
        nonce: 'n-1',
      });
      expect(byId('mdl').decoded.format).toBe('mso_mdoc');
      expect(byId('broken').error).toMatch(/unrecognised credential/);
    }
  });
});
