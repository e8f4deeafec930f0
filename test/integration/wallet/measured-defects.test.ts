import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { startWalletServer, type TestWallet } from '../../support/wallet-server.ts';

// Issue 30, wallet items 13-15 (16 is in presentation.test.ts, 17 in outbound-guard.test.ts).
let main: TestServer;
let wallet: TestWallet;
let broken: Server;
let brokenWallet: TestWallet;
const UPSTREAM_MARKER = 'UPSTREAM-SECRET-HTML';
beforeAll(async () => {
  main = await startMainServer();
  // An issuer that answers everything with a 500 page.
  broken = createServer((_req, res) =>
    res.writeHead(500, { 'content-type': 'text/html' }).end(`<html><body>${UPSTREAM_MARKER} stack trace</body></html>`),
  );
  const port = await new Promise<number>((resolve) =>
    broken.listen(0, '127.0.0.1', () => resolve((broken.address() as { port: number }).port)),
  );
  const iaca = await (await fetch(`${main.url}/oid4vci/iaca.pem`)).text();
  [wallet, brokenWallet] = await Promise.all([
    startWalletServer({ clock: main.clock, env: { BASE_URL: main.url, WALLET_MDOC_IACA_ROOT_PEM: iaca } }),
    startWalletServer({ env: { BASE_URL: main.url, WALLET_ISSUER_BASE_URL: `http://127.0.0.1:${port}` } }),
  ]);
});
afterAll(async () => {
  await Promise.all([wallet.close(), brokenWallet.close()]);
  await new Promise((r) => broken.close(r));
  await main.close();
});

const api = (base: string, path: string, body?: unknown) =>
  fetch(
    `${base}${path}`,
    body === undefined
      ? { headers: { 'x-wallet-session': 'defects' } }
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-wallet-session': 'defects' },
          body: JSON.stringify(body),
        },
  );

describe('wallet routing and errors', () => {
  it('[item 13] an unknown /api path is 404 not_found, for GET, POST and OPTIONS alike; known paths keep their preflight', async () => {
    for (const init of [
      {},
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      { method: 'OPTIONS', headers: { origin: main.url, 'access-control-request-method': 'GET' } },
    ] as RequestInit[]) {
      const res = await fetch(`${wallet.url}/api/no-such-thing`, init);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
    const preflight = await fetch(`${wallet.url}/api/session`, {
      method: 'OPTIONS',
      headers: { origin: main.url, 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(main.url);
    const wrongMethod = await fetch(`${wallet.url}/api/session`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('GET');
  });

  it("[item 14] a 502 carries each hop's step, method, URL and status only, never the upstream's bytes", async () => {
    const res = await api(brokenWallet.url, '/api/issue', {});
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(text).not.toContain(UPSTREAM_MARKER);
    const body = JSON.parse(text);
    expect(body.error).toBe('upstream_error');
    expect(body._protocol_exchanges.length).toBeGreaterThan(0);
    for (const hop of body._protocol_exchanges)
      expect(Object.keys(hop).sort()).toEqual(['method', 'status', 'step', 'url']);
    expect(body._protocol_exchanges[0]).toMatchObject({ method: 'GET', status: 500 });
  });

  it('[item 15] /api/issue for a HAIP configuration without HAIP material is 400 haip_material_required before any issuance request', async () => {
    const res = await api(wallet.url, '/api/issue', { credential_configuration_id: 'UniversityDegreeCredentialHAIP' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('haip_material_required');
    // Only the metadata that names the configuration was read: no offer, PAR or token request.
    const steps = body._protocol_exchanges.map((hop: { step: string; method: string }) => hop.method);
    expect(steps.every((method: string) => method === 'GET')).toBe(true);
  });
});

describe('mdoc values in the session JSON (item 19)', () => {
  it('[item 19] bytes as base64url, dates as text, nested maps whole', async () => {
    const issued = await api(wallet.url, '/api/issue', { credential_configuration_id: 'MobileDrivingLicenceMsoMdoc' });
    expect(issued.status, await issued.clone().text()).toBe(200);
    const session = await (await api(wallet.url, '/api/session')).json();
    const mdl = session.credentials.find((c: { format: string }) => c.format === 'mso_mdoc');
    const claims = mdl.claims['org.iso.18013.5.1'];
    expect(claims.portrait).toMatch(/^[A-Za-z0-9_-]{8,}$/);
    expect(Buffer.from(claims.portrait, 'base64url').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(claims.birth_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Array.isArray(claims.driving_privileges)).toBe(true);
    expect(claims.driving_privileges.length).toBeGreaterThan(0);
    expect(claims.driving_privileges[0]).toMatchObject({ vehicle_category_code: expect.any(String) });
    expect(Object.keys(claims.driving_privileges[0]).length).toBeGreaterThan(0);
    // The verifier's result shows the same values the same way.
    const query = {
      credentials: [
        {
          id: 'mdl',
          format: 'mso_mdoc',
          meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
          claims: [
            { path: ['org.iso.18013.5.1', 'portrait'] },
            { path: ['org.iso.18013.5.1', 'driving_privileges'] },
            { path: ['org.iso.18013.5.1', 'birth_date'] },
          ],
        },
      ],
    };
    const created = await (
      await fetch(`${main.url}/oid4vp/request/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ dcql_query: query }),
      })
    ).json();
    const submitted = await api(wallet.url, '/submit', { uri: created.authorization_request_uri });
    expect(submitted.status, await submitted.clone().text()).toBe(200);
    const result = await (await fetch(created.result_uri)).json();
    expect(result.status, JSON.stringify(result.reasons)).toBe('verified');
    const shown = result.presentations.mdl[0].claims['org.iso.18013.5.1'];
    expect(shown).toMatchObject({
      portrait: claims.portrait,
      birth_date: claims.birth_date,
      driving_privileges: claims.driving_privileges,
    });
  });
});
