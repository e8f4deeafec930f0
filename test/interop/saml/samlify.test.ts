import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as samlify from 'samlify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { demoSps, SamlBrowser, clockToRealTime } from '../../support/saml.ts';

// samlify, unmodified, as an IdP in front of our SP and as an SP in front of our IdP. samlify asks for
// an XML schema validator; the XSD one needs Java, so this peer runs with schema validation skipped.
samlify.setSchemaValidator({ validate: async () => 'skipped' });

let server: TestServer;
let idpServer: Server;
let samlifyIdp: ReturnType<typeof samlify.IdentityProvider>;
let idpBase: string;
let demo: { key: string; cert: string };
const BINDING_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const BINDING_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

beforeAll(async () => {
  server = await startMainServer({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  const published = (await demoSps(server.url)).service_providers.find((sp) => sp.id === 'demo-sp')!;
  demo = { key: published.published_private_key_pem!, cert: published.certificate_pem! };
  idpServer = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(samlifyIdp.getMetadata());
  });
  await new Promise<void>((resolve) => idpServer.listen(0, '127.0.0.1', () => resolve()));
  idpBase = `http://127.0.0.1:${(idpServer.address() as AddressInfo).port}`;
  // The IdP signs with the demo SPs' published key (an RSA key and certificate anyone may use).
  samlifyIdp = samlify.IdentityProvider({
    entityID: `${idpBase}/idp`,
    signingCert: demo.cert,
    privateKey: demo.key,
    wantAuthnRequestsSigned: true,
    singleSignOnService: [{ Binding: BINDING_REDIRECT, Location: `${idpBase}/sso` }],
    nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
  });
}, 30_000);
beforeEach(() => clockToRealTime(server.clock)());
afterAll(async () => {
  idpServer.close();
  await server.close();
});

describe('samlify as an IdP in front of our SP', () => {
  it('[saml-profiles-005] our SP sends a signed AuthnRequest to an IdP known by its metadata URL and consumes its signed response', async () => {
    const login = await fetch(
      `${server.url}/saml/sp/login?idp_metadata_url=${encodeURIComponent(`${idpBase}/metadata`)}`,
      {
        redirect: 'manual',
      },
    );
    expect(login.status).toBe(303);
    const location = login.headers.get('location')!;
    expect(location.startsWith(`${idpBase}/sso?SAMLRequest=`)).toBe(true);
    const raw = location.slice(location.indexOf('?') + 1);
    const query = Object.fromEntries(new URLSearchParams(raw));
    const octetString = raw.slice(0, raw.indexOf('&Signature='));
    const ourSp = samlify.ServiceProvider({ metadata: await (await fetch(`${server.url}/saml/sp/metadata`)).text() });
    // samlify checks our request's redirect signature against our SP metadata (wantAuthnRequestsSigned).
    const request = await samlifyIdp.parseLoginRequest(ourSp, 'redirect', { query, octetString });
    const answer = (await samlifyIdp.createLoginResponse(
      ourSp,
      { ...request },
      'post',
      { email: 'carol@example.org' },
      undefined,
      undefined,
      query.RelayState,
    )) as {
      context: string;
      entityEndpoint: string;
    };
    expect(answer.entityEndpoint).toBe(`${server.url}/saml/sp/acs`);
    const acs = await fetch(answer.entityEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ SAMLResponse: answer.context, RelayState: query.RelayState }).toString(),
    });
    const body = (await acs.json()) as Record<string, unknown>;
    expect(acs.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ signed_in: true, idp: `${idpBase}/idp`, name_id: 'carol@example.org' });
    // The same response again is a replay.
    const again = await fetch(answer.entityEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ SAMLResponse: answer.context }).toString(),
    });
    expect(again.status).toBe(400);
  });

  it('refuses an IdP whose metadata cannot be trusted, through the outbound guard', async () => {
    const bad = await fetch(
      `${server.url}/saml/sp/login?idp_metadata_url=${encodeURIComponent('http://169.254.169.254/metadata')}`,
      {
        redirect: 'manual',
        headers: { accept: 'application/json' },
      },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('destination_not_allowed');
  });
});

describe('saml/web-sso against your own IdP (a flow target)', () => {
  it('[saml-profiles-011] the run waits for the person at your IdP; its Response comes back to our ACS and each check is a verdict', async () => {
    const started = await fetch(`${server.url}/api/protocols/saml/demo/web-sso`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: { idp_metadata_url: `${idpBase}/metadata` } }),
    });
    const body = (await started.json()) as any;
    expect(started.status, JSON.stringify(body).slice(0, 300)).toBe(202);
    expect(body.status).toBe('awaiting_user');
    // The person at the samlify IdP: the AuthnRequest is read and answered, the browser posts to our ACS.
    const raw = body.authorization_url.slice(body.authorization_url.indexOf('?') + 1);
    const query = Object.fromEntries(new URLSearchParams(raw));
    const ourSp = samlify.ServiceProvider({ metadata: await (await fetch(`${server.url}/saml/sp/metadata`)).text() });
    const request = await samlifyIdp.parseLoginRequest(ourSp, 'redirect', {
      query,
      octetString: raw.slice(0, raw.indexOf('&Signature=')),
    });
    const answer = (await samlifyIdp.createLoginResponse(
      ourSp,
      { ...request },
      'post',
      { email: 'dora@example.org' },
      undefined,
      undefined,
      query.RelayState,
    )) as {
      context: string;
      entityEndpoint: string;
    };
    const acs = await fetch(answer.entityEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ SAMLResponse: answer.context, RelayState: query.RelayState }).toString(),
      redirect: 'manual',
    });
    expect(acs.status).toBe(303);
    const callback = await fetch(acs.headers.get('location')!, { redirect: 'manual' });
    expect(callback.headers.get('location')).toBe(`/runs/${body.run_id}`);
    let run = body;
    while (run.status === 'awaiting_user' || run.status === 'running')
      run = await (
        await fetch(`${server.url}/api/runs/${body.run_id}`, { headers: { authorization: `Bearer ${body.run_token}` } })
      ).json();
    expect(run.status, run.error).toBe('succeeded');
    const checks = (run.checks as any[]).map((c) => `${c.check}:${c.verdict}`);
    expect(checks).toEqual(
      expect.arrayContaining([
        'assertion_signature:passed',
        'audience:passed',
        'in_response_to:passed',
        'replay:passed',
      ]),
    );
  });
});

describe('samlify as an SP in front of our IdP', () => {
  it('[saml-profiles-006] signs in over HTTP-Redirect and samlify verifies the signed assertion; encrypted for the strict demo SP', async () => {
    const metadata = await (await fetch(`${server.url}/saml/idp/metadata`)).text();
    for (const id of ['demo-sp', 'demo-sp-strict'] as const) {
      const strict = id === 'demo-sp-strict';
      // Our IdP asks for signed requests per SP (demo-sp-strict's metadata), not of every SP; samlify
      // refuses an SP that signs in front of an IdP that does not say it wants it, so it is told so here.
      const ourIdp = samlify.IdentityProvider({
        metadata: strict
          ? metadata.replace('WantAuthnRequestsSigned="false"', 'WantAuthnRequestsSigned="true"')
          : metadata,
        // samlify reads whether to decrypt from the IdP entity's setting.
        isAssertionEncrypted: strict,
      });
      const sp = samlify.ServiceProvider({
        entityID: `${server.url}/saml/demo/sps/${id}`,
        authnRequestsSigned: strict,
        wantAssertionsSigned: true,
        signingCert: demo.cert,
        privateKey: demo.key,
        ...(strict ? { encPrivateKey: demo.key, encryptCert: demo.cert, isAssertionEncrypted: true } : {}),
        assertionConsumerService: [{ Binding: BINDING_POST, Location: 'http://127.0.0.1:8765/saml/acs' }],
      });
      const { context } = sp.createLoginRequest(ourIdp, 'redirect') as { context: string };
      const browser = new SamlBrowser(server.url, 'bob');
      const form = await browser.responseForm(await browser.sso({ url: context }));
      expect(form.xml.includes('EncryptedAssertion')).toBe(strict);
      const { extract } = (await sp.parseLoginResponse(ourIdp, 'post', {
        body: { SAMLResponse: form.fields.SAMLResponse },
      })) as {
        extract: { nameID: string; attributes: Record<string, string> };
      };
      // samlify asks for emailAddress in its NameIDPolicy, which our IdP honours for either SP.
      expect(extract.nameID).toBe('bob@example.com');
      expect(extract.attributes.uid ?? extract.attributes['urn:oid:0.9.2342.19200300.100.1.1']).toBe('bob');
    }
  });
});

describe('samlify single logout over HTTP-POST', () => {
  it('[saml-bindings-004] a signed LogoutRequest posted by samlify is answered with a signed LogoutResponse over HTTP-POST', async () => {
    const metadata = await (await fetch(`${server.url}/saml/idp/metadata`)).text();
    // samlify signs a LogoutRequest only for an IdP said to want it; ours refuses unsigned ones (profiles §4.4.4.1).
    const ourIdp = samlify.IdentityProvider({ metadata, wantLogoutRequestSigned: true });
    const sp = samlify.ServiceProvider({
      entityID: `${server.url}/saml/demo/sps/demo-sp`,
      wantAssertionsSigned: true,
      wantLogoutResponseSigned: true,
      signingCert: demo.cert,
      privateKey: demo.key,
      assertionConsumerService: [{ Binding: BINDING_POST, Location: 'http://127.0.0.1:8765/saml/acs' }],
      singleLogoutService: [{ Binding: BINDING_POST, Location: 'http://127.0.0.1:8765/saml/slo' }],
    });
    const browser = new SamlBrowser(server.url, 'alice');
    const { context } = sp.createLoginRequest(ourIdp, 'redirect') as { context: string };
    const login = await browser.responseForm(await browser.sso({ url: context }));
    const { extract } = (await sp.parseLoginResponse(ourIdp, 'post', {
      body: { SAMLResponse: login.fields.SAMLResponse },
    })) as any;
    const request = sp.createLogoutRequest(ourIdp, 'post', {
      logoutNameID: extract.nameID,
      sessionIndex: extract.sessionIndex?.sessionIndex,
    }) as { context: string; entityEndpoint: string };
    expect(request.entityEndpoint).toBe(`${server.url}/saml/idp/slo`);
    const answer = await browser.postForm(request.entityEndpoint, { SAMLRequest: request.context });
    const form = await browser.responseForm(answer);
    expect(form.action).toBe('http://127.0.0.1:8765/saml/slo');
    const logout = (await sp.parseLogoutResponse(ourIdp, 'post', {
      body: { SAMLResponse: form.fields.SAMLResponse },
    })) as any;
    expect(logout.extract.response.inResponseTo).toBeDefined();
    expect(form.xml).toContain('urn:oasis:names:tc:SAML:2.0:status:Success');
    // The session is over.
    const again = await browser.fetch((sp.createLoginRequest(ourIdp, 'redirect') as { context: string }).context);
    expect(again.status).toBe(303);
  });
});
