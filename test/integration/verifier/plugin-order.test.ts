import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_ROUTES } from '../../../adapters/http/main/routes.ts';
import { issuerRoutes } from '../../../adapters/http/issuer/plugin.ts';
import { verifierRoutes } from '../../../adapters/http/verifier/plugin.ts';
import { exchange, form, json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { holderKey, issueFromOurIssuer, presentSdJwt } from '../../support/holder.ts';

// Issue 37 (a named bug): the verifier started only if the issuer plugin had run first, because it read
// the credential trust the issuer plugin left in the context. The composition root now builds it.
let server: TestServer;
beforeAll(async () => {
  const withoutBoth = MAIN_ROUTES.filter((plugin) => plugin !== issuerRoutes && plugin !== verifierRoutes);
  server = await startMainServer({ origin: { routes: [verifierRoutes, ...withoutBoth, issuerRoutes] } });
});
afterAll(async () => {
  await server?.close();
});

describe('the verifier registered before the issuer', () => {
  it('[issue 37] starts, and trusts what the issuer signs', async () => {
    const holder = await holderKey();
    const nowS = Math.floor(server.clock.now() / 1000);
    const sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS)) as string;
    const created = (
      await exchange(
        server.url,
        '/oid4vp/request/create',
        json({ dcql_query: { credentials: [{ id: 'degree', format: 'dc+sd-jwt', claims: [{ path: ['degree'] }] }] } }),
      )
    ).body;
    const vp = await presentSdJwt(sdJwt, holder, {
      clientId: created.client_id,
      nonce: created.nonce,
      responseUri: created.response_uri,
      nowS,
    });
    expect(
      (
        await exchange(
          server.url,
          '/oid4vp/response',
          form({ vp_token: JSON.stringify({ degree: [vp] }), state: created.state }),
        )
      ).status,
    ).toBe(200);
    expect((await (await fetch(created.result_uri)).json()).status).toBe('verified');
  });
});
