import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { readForm, SamlBrowser } from '../../support/saml.ts';

// Issue 49: our SP at {base}/saml/sp with our IdP, end to end: metadata, a signed AuthnRequest over either
// binding, the encrypted and signed Response consumed at the ACS with every check named, and the log.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const postAcs = (fields: Record<string, string>) => postAcsAt(`${server.url}/saml/sp/acs`, fields);
const postAcsAt = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

describe('our SP with our IdP', () => {
  it('[saml-metadata-002] publishes signed SP metadata: AuthnRequestsSigned, WantAssertionsSigned, its keys and endpoints', async () => {
    const response = await fetch(`${server.url}/saml/sp/metadata`);
    expect(response.headers.get('content-type')).toContain('application/samlmetadata+xml');
    const xml = await response.text();
    expect(xml).toContain(`entityID="${server.url}/saml/sp"`);
    expect(xml).toContain('AuthnRequestsSigned="true" WantAssertionsSigned="true"');
    expect(xml).toContain('<md:KeyDescriptor use="encryption">');
    expect(xml).toContain(`Location="${server.url}/saml/sp/acs"`);
    expect(xml).toMatch(
      /<ds:Signature[\s\S]*<ds:SignatureMethod Algorithm="http:\/\/www\.w3\.org\/2001\/04\/xmldsig-more#rsa-sha256"/,
    );
  });

  it('[saml-profiles-008] signs in over redirect and post: the assertion decrypted, both signatures checked, InResponseTo its own request, once', async () => {
    for (const binding of ['redirect', 'post']) {
      const browser = new SamlBrowser(server.url, 'admin');
      const start = await fetch(`${server.url}/saml/sp/login?binding=${binding}&RelayState=back-to-app`, {
        redirect: 'manual',
      });
      const first =
        binding === 'redirect'
          ? { url: new URL(start.headers.get('location')!, server.url).href }
          : readForm(await start.text());
      const form = await browser.responseForm(await browser.sso(first));
      expect(form.action).toBe(`${server.url}/saml/sp/acs`);
      expect(form.xml).toContain('EncryptedAssertion');
      const acs = await postAcs(form.fields);
      const body = (await acs.json()) as any;
      expect(acs.status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ signed_in: true, idp: `${server.url}/saml/idp`, relay_state: 'back-to-app' });
      expect(body.name_id_format).toBe('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
      expect(body.attributes.uid).toEqual(['admin']);
      expect(body.checks_passed).toEqual([
        'xml_safe',
        'response_destination',
        'status',
        'response_signature',
        'decryption',
        'assertion_signature',
        'issuer',
        'recipient',
        'time_conditions',
        'audience',
        'in_response_to',
        'replay',
      ]);
      const events = await server.main.ctx.log.readStream(body.stream);
      expect(events.map((e) => e.type)).toEqual(['login.requested', 'login.consumed']);
      // The login's stream exports like any other, each event with the machine state after it.
      const exported = await fetch(`${server.url}/api/streams/${encodeURIComponent(body.stream)}/export`);
      expect(exported.status).toBe(200);
      expect(JSON.stringify(await exported.json())).toContain('"consumed"');
      const again = await postAcs(form.fields);
      expect(again.status).toBe(400);
      expect(((await again.json()) as any).check).toBe('in_response_to');
    }
  });

  it('[saml-profiles-009] accepts an IdP-initiated (unsolicited) Response once, and refuses one the clock has expired', async () => {
    const browser = new SamlBrowser(server.url, 'bob');
    const form = await browser.responseForm(
      await browser.sso({
        action: `${server.url}/saml/idp/initiate`,
        fields: { sp: 'portico-sp', RelayState: 'idp-init' },
      }),
    );
    expect(form.fields.RelayState).toBe('idp-init');
    expect(form.xml).not.toContain('InResponseTo');
    const acs = await postAcs(form.fields);
    expect(acs.status).toBe(200);
    expect(((await acs.json()) as any).checks_passed).toContain('replay');
    expect((await postAcs(form.fields)).status).toBe(400);
    const late = await browser.responseForm(
      await browser.postForm(`${server.url}/saml/idp/initiate`, { sp: 'portico-sp' }),
    );
    server.clock.advance(6 * 60_000);
    const expired = await postAcs(late.fields);
    expect(((await expired.json()) as any).check).toBe('expired');
  });

  it("the IdP page offers IdP-initiated sign-in to each demo SP, and shows this browser's session with its SPs", async () => {
    const empty = await (await fetch(`${server.url}/saml/idp`)).text();
    expect(empty).toContain('No session in this browser.');
    expect(empty).toContain('<option value="demo-sp-strict">');
    const browser = new SamlBrowser(server.url, 'alice');
    await browser.responseForm(
      await browser.sso({ action: `${server.url}/saml/idp/initiate`, fields: { sp: 'portico-sp' } }),
    );
    const page = await (await browser.fetch(`${server.url}/saml/idp`)).text();
    expect(page).toContain('Signed in as <strong>alice</strong>');
    expect(page).toContain(`<code>${server.url}/saml/sp</code>`);
    const markdown = await (await fetch(`${server.url}/saml/idp`, { headers: { accept: 'text/markdown' } })).text();
    expect(markdown).toContain('/saml/idp/initiate');
  });

  it('the demo SPs’ ACS on this origin shows what the IdP sent, decoded', async () => {
    const browser = new SamlBrowser(server.url, 'bob');
    const form = await browser.responseForm(
      await browser.sso({
        action: `${server.url}/saml/idp/initiate`,
        fields: { sp: 'demo-sp-strict', RelayState: 'try' },
      }),
    );
    expect(form.action).toBe('http://127.0.0.1:8765/saml/acs');
    const page = await postAcsAt(`${server.url}/saml/demo/acs`, form.fields);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('samlp:Response');
    expect(html).toContain('RelayState try');
    expect(html).toContain('decrypted_assertion');
  });
});
