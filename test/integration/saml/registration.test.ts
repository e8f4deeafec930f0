import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as samlify from 'samlify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { demoSps, SamlBrowser, clockToRealTime } from '../../support/saml.ts';

// Issue 49: registering an SP by its metadata is the DYNAMIC_CLIENTS extension (decisions §11): absent by
// default; when on, metadata posted or fetched through the outbound guard, its certificates checked.
samlify.setSchemaValidator({ validate: async () => 'skipped' });

let off: TestServer;
let on: TestServer;
let metadataServer: Server;
let metadataBase: string;
let spMetadata: string;

beforeAll(async () => {
  [off, on] = await Promise.all([
    startMainServer(),
    startMainServer({ env: { DYNAMIC_CLIENTS: 'true', OUTBOUND_ALLOW_LOOPBACK: 'true' } }),
  ]);
  const published = (await demoSps(on.url)).service_providers.find((sp) => sp.id === 'demo-sp')!;
  spMetadata = samlify
    .ServiceProvider({
      entityID: 'https://registered-sp.example/saml',
      signingCert: published.certificate_pem!,
      privateKey: published.published_private_key_pem!,
      wantAssertionsSigned: true,
      assertionConsumerService: [
        { Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', Location: 'http://127.0.0.1:9000/acs' },
      ],
    })
    .getMetadata();
  metadataServer = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'application/samlmetadata+xml' })
      .end(spMetadata.replaceAll('registered-sp.example', 'fetched-sp.example'));
  });
  await new Promise<void>((resolve) => metadataServer.listen(0, '127.0.0.1', () => resolve()));
  metadataBase = `http://127.0.0.1:${(metadataServer.address() as AddressInfo).port}`;
});
beforeEach(() => {
  clockToRealTime(on.clock)();
});
afterAll(async () => {
  metadataServer.close();
  await Promise.all([off.close(), on.close()]);
});

describe('SAML SP registration (DYNAMIC_CLIENTS)', () => {
  it('is not served by default: 404 in the error contract', async () => {
    const response = await fetch(`${off.url}/saml/idp/sps`, json({ metadata: spMetadata }));
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error).toBe('not_found');
  });

  it('[saml-metadata-003] registers posted metadata once; the SP then signs in with samlify', async () => {
    const created = await fetch(`${on.url}/saml/idp/sps`, json({ metadata: spMetadata }));
    const body = (await created.json()) as any;
    expect(created.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({
      entity_id: 'https://registered-sp.example/saml',
      assertion_consumer_services: ['http://127.0.0.1:9000/acs'],
    });
    expect((await fetch(`${on.url}/saml/idp/sps`, json({ metadata: spMetadata }))).status).toBe(400);

    const idp = samlify.IdentityProvider({ metadata: await (await fetch(`${on.url}/saml/idp/metadata`)).text() });
    const sp = samlify.ServiceProvider({
      metadata: spMetadata,
      privateKey: (await demoSps(on.url)).service_providers[1].published_private_key_pem,
    });
    const { context } = sp.createLoginRequest(idp, 'redirect') as { context: string };
    const browser = new SamlBrowser(on.url, 'alice');
    const form = await browser.responseForm(await browser.sso({ url: context }));
    const { extract } = (await sp.parseLoginResponse(idp, 'post', {
      body: { SAMLResponse: form.fields.SAMLResponse },
    })) as any;
    expect(extract.nameID).toBe('alice@example.com');
  });

  it('fetches metadata through the outbound guard, and refuses what it cannot trust', async () => {
    const fetched = await fetch(`${on.url}/saml/idp/sps`, json({ metadata_url: `${metadataBase}/metadata` }));
    expect(fetched.status).toBe(201);
    expect(((await fetched.json()) as any).entity_id).toBe('https://fetched-sp.example/saml');
    const metadataIp = await fetch(`${on.url}/saml/idp/sps`, json({ metadata_url: 'http://169.254.169.254/latest' }));
    expect(((await metadataIp.json()) as any).error).toBe('destination_not_allowed');
    const noCert = spMetadata.replace(/<ds:X509Certificate>[^<]+</g, '<ds:X509Certificate>AAAA<');
    const refused = await fetch(
      `${on.url}/saml/idp/sps`,
      json({ metadata: noCert.replaceAll('registered-sp', 'other-sp') }),
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).error_description).toContain('metadata_certificate');
    const demo = await fetch(
      `${on.url}/saml/idp/sps`,
      json({ metadata: spMetadata.replace('https://registered-sp.example/saml', `${on.url}/saml/demo/sps/demo-sp`) }),
    );
    expect(demo.status).toBe(400);
  });

  // Issue 45 item 39: what is stored is validated first. The IdP posts a browser to the ACS Location with an
  // auto-submitted form, so a javascript: or data: Location would run script on this origin.
  it('refuses an endpoint Location that is not an http(s) URL, and an entityID that is not a URI', async () => {
    const register = async (metadata: string) => {
      const response = await fetch(`${on.url}/saml/idp/sps`, json({ metadata }));
      return { status: response.status, body: (await response.json()) as any };
    };
    const renamed = (name: string) => spMetadata.replaceAll('registered-sp.example', name);
    for (const location of [
      'javascript:alert(document.domain)',
      'data:text/html,<script>1</script>',
      'http://u:p@127.0.0.1:9000/acs',
    ]) {
      const answer = await register(renamed('bad-acs.example').replace('http://127.0.0.1:9000/acs', location));
      expect([answer.status, answer.body.error]).toEqual([400, 'invalid_request']);
      expect(answer.body.error_description).toContain('metadata_endpoint');
    }
    const spaced = await register(spMetadata.replace('https://registered-sp.example/saml', 'not a uri'));
    expect(spaced.status).toBe(400);
    expect(spaced.body.error_description).toContain('entityID');
  });
});
