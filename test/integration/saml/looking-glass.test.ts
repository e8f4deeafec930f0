import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';
import { idpCertificate, SamlBrowser } from '../../support/saml.ts';

// Issue 49: the looking glass decodes SAML pasted raw, base64 or as a Redirect URL.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const decode = async (body: Record<string, unknown>) => {
  const response = await fetch(`${server.url}/api/lookingglass/decode/saml`, json(body));
  return { status: response.status, body: (await response.json()) as any };
};

describe('the looking glass for SAML', () => {
  it('[saml-core-009] decodes a Redirect URL and a posted Response: elements with sections, signatures with what they cover, the assertion decrypted', async () => {
    const start = await fetch(`${server.url}/saml/sp/login`, { redirect: 'manual' });
    const url = new URL(start.headers.get('location')!, server.url).href;
    const request = await decode({ message: url });
    expect(request.status).toBe(200);
    expect(request.body).toMatchObject({
      encoding: 'redirect-url',
      message: 'samlp:AuthnRequest',
      query_signature: { verdict: 'valid' },
    });
    expect(request.body.elements[0]).toMatchObject({ element: 'samlp:AuthnRequest', section: '§3.4.1' });

    const browser = new SamlBrowser(server.url, 'alice');
    const form = await browser.responseForm(await browser.sso({ url }));
    const response = await decode({ message: form.fields.SAMLResponse, certificate: await idpCertificate(server.url) });
    expect(response.body.encoding).toBe('base64');
    expect(response.body.signatures).toEqual([
      expect.objectContaining({
        in: 'samlp:Response',
        covers_its_parent: true,
        verdict: 'valid',
        algorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      }),
    ]);
    expect(response.body.decrypted_assertion).toContain('<saml:NameID');
    expect(response.body.elements.map((e: any) => e.element)).toContain('saml:EncryptedAssertion');
  });

  it('the looking glass page decodes a pasted message: elements linked to their sections, signatures, the XML', async () => {
    const empty = await (await fetch(`${server.url}/looking-glass`)).text();
    expect(empty).toContain('id="saml-form"');
    const start = await fetch(`${server.url}/saml/sp/login`, { redirect: 'manual' });
    const browser = new SamlBrowser(server.url, 'bob');
    const form = await browser.responseForm(
      await browser.sso({ url: new URL(start.headers.get('location')!, server.url).href }),
    );
    const page = await fetch(`${server.url}/looking-glass`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ saml: form.fields.SAMLResponse }).toString(),
    });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('SAML: samlp:Response (base64)');
    expect(html).toContain('(its own element)');
    expect(html).toContain('href="https://docs.oasis-open.org/security/saml/v2.0/saml-core-2.0-os.pdf"');
    expect(html).toContain('The assertion, decrypted');
    const refused = await fetch(`${server.url}/looking-glass`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ saml: '<!DOCTYPE x><x/>' }).toString(),
    });
    expect(refused.status).toBe(200);
    expect(await refused.text()).toContain('xml_dtd');
  });

  it('refuses a DTD and what is not a SAML message, in the error contract', async () => {
    const dtd = await decode({ message: '<!DOCTYPE x [<!ENTITY e "e">]><x>&e;</x>' });
    expect(dtd.status).toBe(400);
    expect(dtd.body.error_description).toContain('xml_dtd');
    const junk = await decode({ message: '%%%' });
    expect(junk.status).toBe(400);
    expect(junk.body.error).toBe('invalid_request');
  });
});

describe('SAML through /mcp', () => {
  it('decode_saml and list_saml_service_providers are read-only tools of /mcp', async () => {
    const client = new Client({ name: 'portico-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const { tools } = await client.listTools();
    for (const name of ['decode_saml', 'list_saml_service_providers'])
      expect(tools.find((t) => t.name === name)?.annotations).toMatchObject({ readOnlyHint: true });
    const listed = await client.callTool({ name: 'list_saml_service_providers', arguments: {} });
    expect((listed.structuredContent as any).service_providers.map((sp: any) => sp.id)).toEqual([
      'portico-sp',
      'demo-sp',
      'demo-sp-strict',
    ]);
    const start = await fetch(`${server.url}/saml/sp/login`, { redirect: 'manual' });
    const decoded = await client.callTool({
      name: 'decode_saml',
      arguments: { message: new URL(start.headers.get('location')!, server.url).href },
    });
    expect(decoded.structuredContent).toMatchObject({
      message: 'samlp:AuthnRequest',
      query_signature: { verdict: 'valid' },
    });
    const refused = await client.callTool({ name: 'decode_saml', arguments: { message: '<!DOCTYPE x><x/>' } });
    expect(refused.isError).toBe(true);
    await client.close();
  });
});
