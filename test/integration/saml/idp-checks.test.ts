import { createSign } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { demoSps, readForm, SamlBrowser } from '../../support/saml.ts';

// Issue 49: each check on an AuthnRequest at the IdP, named in its refusal (a status response to a trusted
// ACS URL, else an error page) and recorded in the log; hostile XML at every IdP endpoint never a 5xx.
let server: TestServer;
let demoKey: string;
const ACS = 'http://127.0.0.1:8765/saml/acs';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';

beforeAll(async () => {
  server = await startMainServer();
  demoKey = (await demoSps(server.url)).service_providers.find((sp) => sp.id === 'demo-sp')!.published_private_key_pem!;
});
afterAll(() => server.close());

const time = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
let counter = 0;

/** An AuthnRequest of a demo SP; `over` changes attributes or inner XML. */
function authnRequest(
  over: {
    sp?: string;
    id?: string;
    acs?: string;
    destination?: string | null;
    issued?: number;
    attrs?: string;
    inner?: string;
  } = {},
) {
  const sp = over.sp ?? 'demo-sp';
  const id = over.id ?? `_req${Date.now()}${counter++}`;
  const destination =
    over.destination === null ? '' : ` Destination="${over.destination ?? `${server.url}/saml/idp/sso`}"`;
  return `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${time(
    over.issued ?? server.clock.now(),
  )}"${destination} AssertionConsumerServiceURL="${over.acs ?? ACS}"${over.attrs ?? ''}><saml:Issuer>${server.url}/saml/demo/sps/${sp}</saml:Issuer>${over.inner ?? ''}</samlp:AuthnRequest>`;
}

/** The HTTP-Redirect URL of `xml`, signed with the demo key when asked. */
function redirect(xml: string, sign = false, relay = 'r1') {
  const parts = [
    `SAMLRequest=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`,
    `RelayState=${relay}`,
  ];
  if (sign) {
    parts.push(`SigAlg=${encodeURIComponent(RSA_SHA256)}`);
    parts.push(
      `Signature=${encodeURIComponent(createSign('RSA-SHA256').update(parts.join('&')).sign(demoKey, 'base64'))}`,
    );
  }
  return `${server.url}/saml/idp/sso?${parts.join('&')}`;
}

/** The status codes of a status response posted to the ACS. */
async function statusOf(response: Response) {
  const html = await response.text();
  expect(response.status, html.slice(0, 300)).toBe(200);
  const xml = Buffer.from(readForm(html).fields.SAMLResponse, 'base64').toString();
  return [...xml.matchAll(/StatusCode Value="([^"]+)"/g)].map((m) => m[1].split(':').pop());
}

const errorPageCheck = async (response: Response) => {
  const html = await response.text();
  expect(response.status).toBe(400);
  return html;
};

describe('checks on each AuthnRequest', () => {
  it('[saml-core-004] an unknown issuer or an ACS URL not in the metadata is an error page, never a response to an untrusted URL', async () => {
    const unknown = await fetch(redirect(authnRequest().replace('/saml/demo/sps/demo-sp<', '/saml/demo/sps/nobody<')));
    expect(await errorPageCheck(unknown)).toContain('issuer_known');
    const acs = await fetch(redirect(authnRequest({ acs: 'https://attacker.example/acs' })));
    expect(await errorPageCheck(acs)).toContain('acs_url');
  });

  it('[saml-core-005] refuses an unsigned request where the metadata says AuthnRequestsSigned, a bad signature, replay, a stale IssueInstant and a wrong Destination, each with its status', async () => {
    expect(await statusOf(await fetch(redirect(authnRequest({ sp: 'demo-sp-strict' }))))).toEqual([
      'Requester',
      'RequestDenied',
    ]);
    const forged = redirect(authnRequest({ sp: 'demo-sp-strict' }), true).replace(/Signature=[^&]+/, 'Signature=AAAA');
    expect(await statusOf(await fetch(forged))).toEqual(['Requester', 'RequestDenied']);
    const once = authnRequest({ id: '_replayed-once' });
    expect((await fetch(redirect(once), { redirect: 'manual' })).status).toBe(303);
    expect(await statusOf(await fetch(redirect(once)))).toEqual(['Requester', 'RequestDenied']);
    expect(await statusOf(await fetch(redirect(authnRequest({ issued: server.clock.now() - 10 * 60_000 }))))).toEqual([
      'Requester',
      'RequestDenied',
    ]);
    expect(
      await statusOf(await fetch(redirect(authnRequest({ destination: 'https://elsewhere.example/sso' })))),
    ).toEqual(['Requester', 'RequestDenied']);
    // A signed request must carry its Destination (SAML bindings §3.4.5.2).
    expect(
      await statusOf(await fetch(redirect(authnRequest({ sp: 'demo-sp-strict', destination: null }), true))),
    ).toEqual(['Requester', 'RequestDenied']);
    // Each refusal is recorded with the check that made it.
    const refusals = [];
    for (const id of await server.main.ctx.log.streamIds('saml-authn:'))
      for (const event of await server.main.ctx.log.readStream(id))
        if (event.type === 'authn.refused') refusals.push(event.data.check);
    expect(refusals).toEqual(
      expect.arrayContaining(['request_signature', 'request_replay', 'request_time', 'request_destination']),
    );
  });

  it('[saml-core-006] IsPassive without a session is NoPassive; ForceAuthn asks a signed-in person to sign in again', async () => {
    expect(await statusOf(await fetch(redirect(authnRequest({ attrs: ' IsPassive="true"' }))))).toEqual([
      'Responder',
      'NoPassive',
    ]);
    const browser = new SamlBrowser(server.url, 'alice');
    await browser.responseForm(await browser.sso({ url: redirect(authnRequest()) }));
    expect((await browser.fetch(redirect(authnRequest({ attrs: ' IsPassive="true"' })))).status).toBe(200);
    const forced = await browser.fetch(redirect(authnRequest({ attrs: ' ForceAuthn="true"' })));
    expect(forced.status).toBe(303);
    expect(forced.headers.get('location')).toContain('/saml/idp/login/');
  });

  it('[saml-core-007] NameIDPolicy formats: emailAddress, persistent per SP, transient per assertion; an unknown one is InvalidNameIDPolicy', async () => {
    const policy = (format: string) => `<samlp:NameIDPolicy Format="${format}"/>`;
    const browser = new SamlBrowser(server.url, 'alice');
    const nameIdOf = async (format: string) => {
      const form = await browser.responseForm(
        await browser.sso({ url: redirect(authnRequest({ inner: policy(format) })) }),
      );
      return /<saml:NameID[^>]*>([^<]+)</.exec(form.xml)![1];
    };
    expect(await nameIdOf('urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress')).toBe('alice@example.com');
    const persistent = await nameIdOf('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
    expect(persistent).not.toContain('alice');
    expect(await nameIdOf('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent')).toBe(persistent);
    const transient = await nameIdOf('urn:oasis:names:tc:SAML:2.0:nameid-format:transient');
    expect(await nameIdOf('urn:oasis:names:tc:SAML:2.0:nameid-format:transient')).not.toBe(transient);
    expect(await statusOf(await browser.fetch(redirect(authnRequest({ inner: policy('urn:example:odd') }))))).toEqual([
      'Requester',
      'InvalidNameIDPolicy',
    ]);
  });

  it('[saml-core-008] RequestedAuthnContext: a class this IdP cannot give is NoAuthnContext; PasswordProtectedTransport is given', async () => {
    const context = (c: string) =>
      `<samlp:RequestedAuthnContext Comparison="exact"><saml:AuthnContextClassRef>${c}</saml:AuthnContextClassRef></samlp:RequestedAuthnContext>`;
    expect(
      await statusOf(
        await fetch(redirect(authnRequest({ inner: context('urn:oasis:names:tc:SAML:2.0:ac:classes:Smartcard') }))),
      ),
    ).toEqual(['Responder', 'NoAuthnContext']);
    const browser = new SamlBrowser(server.url, 'bob');
    const form = await browser.responseForm(
      await browser.sso({
        url: redirect(
          authnRequest({ inner: context('urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport') }),
        ),
      }),
    );
    expect(form.xml).toContain(
      '<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport<',
    );
  });

  it('[saml-bindings-002] hostile XML at every IdP endpoint is refused with a named check, never a 5xx', async () => {
    const doctype = `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${authnRequest({ inner: '<x>&e;</x>' })}`;
    const deep = `${'<a>'.repeat(500)}${'</a>'.repeat(500)}`;
    const bomb = `SAMLRequest=${encodeURIComponent(deflateRawSync(Buffer.alloc(6 * 1024 * 1024)).toString('base64'))}`;
    const cases: Array<[string, RequestInit & { url: string }, string]> = [
      ['sso redirect DTD', { url: redirect(doctype) }, 'xml_dtd'],
      ['sso redirect depth', { url: redirect(deep) }, 'xml_depth'],
      ['sso redirect bomb', { url: `${server.url}/saml/idp/sso?${bomb}` }, 'xml_size'],
      ['slo redirect bomb', { url: `${server.url}/saml/idp/slo?${bomb}` }, 'xml_size'],
      [
        'sso post DTD',
        {
          url: `${server.url}/saml/idp/sso`,
          method: 'POST',
          body: new URLSearchParams({ SAMLRequest: Buffer.from(doctype).toString('base64') }),
        },
        'xml_dtd',
      ],
      [
        'slo post DTD',
        {
          url: `${server.url}/saml/idp/slo`,
          method: 'POST',
          body: new URLSearchParams({ SAMLRequest: Buffer.from(doctype).toString('base64') }),
        },
        'xml_dtd',
      ],
      ['sso not XML', { url: `${server.url}/saml/idp/sso?SAMLRequest=AAAA` }, 'redirect_encoding'],
    ];
    for (const [name, { url, ...init }, check] of cases) {
      const response = await fetch(url, init);
      expect(response.status, name).toBe(400);
      expect(await response.text(), name).toContain(check);
    }
    // The refusals at the SSO endpoint are in the log too, even those read before any XML.
    const refusals: string[] = [];
    for (const id of await server.main.ctx.log.streamIds('saml-authn:'))
      for (const event of await server.main.ctx.log.readStream(id))
        if (event.type === 'authn.refused') refusals.push(String(event.data.check));
    expect(refusals).toEqual(expect.arrayContaining(['xml_dtd', 'xml_depth', 'xml_size', 'redirect_encoding']));
  });
});
