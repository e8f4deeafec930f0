import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { describe, expect, it } from 'vitest';
import { readForm, SamlBrowser, useSamlPeerServer } from '../../support/saml.ts';

const peer = useSamlPeerServer();
const ACS = 'http://127.0.0.1:8765/saml/acs';

/** `@node-saml/node-saml` playing a demo SP, unmodified, with the demo SP's published key. */
const nodeSaml = (sp: 'demo-sp' | 'demo-sp-strict', extra: Partial<ConstructorParameters<typeof SAML>[0]> = {}) =>
  new SAML({
    callbackUrl: ACS,
    entryPoint: `${peer.server.url}/saml/idp/sso`,
    issuer: `${peer.server.url}/saml/demo/sps/${sp}`,
    audience: `${peer.server.url}/saml/demo/sps/${sp}`,
    idpCert: peer.idpCert,
    idpIssuer: `${peer.server.url}/saml/idp`,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: sp === 'demo-sp-strict',
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    validateInResponseTo: ValidateInResponseTo.always,
    ...(sp === 'demo-sp-strict' ? { privateKey: peer.demoKey, decryptionPvk: peer.demoKey } : {}),
    ...extra,
  });

describe('@node-saml/node-saml as an SP against our IdP', () => {
  it('[saml-bindings-001] signs in over HTTP-Redirect: an assertion signed for demo-sp, emailAddress NameID, attributes, RelayState', async () => {
    const sp = nodeSaml('demo-sp', { identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress' });
    const url = await sp.getAuthorizeUrlAsync('relay-1', undefined, {});
    const browser = new SamlBrowser(peer.server.url, 'alice');
    const form = await browser.responseForm(await browser.sso({ url }));
    expect(form.action).toBe(ACS);
    expect(form.fields.RelayState).toBe('relay-1');
    const { profile, loggedOut } = await sp.validatePostResponseAsync({ SAMLResponse: form.fields.SAMLResponse });
    expect(loggedOut).toBe(false);
    expect(profile?.nameID).toBe('alice@example.com');
    expect(profile?.nameIDFormat).toBe('urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress');
    expect(profile?.['urn:oid:0.9.2342.19200300.100.1.3']).toBe('alice@example.com');
    expect(profile?.issuer).toBe(`${peer.server.url}/saml/idp`);
  });

  it('[saml-profiles-001] signs in over HTTP-POST with a signed AuthnRequest; the assertion is encrypted (AES-256-GCM) and the response signed', async () => {
    const sp = nodeSaml('demo-sp-strict', { authnRequestBinding: 'HTTP-POST', identifierFormat: null });
    const html = await sp.getAuthorizeFormAsync('relay-2', undefined);
    const browser = new SamlBrowser(peer.server.url, 'bob');
    const form = await browser.responseForm(await browser.sso(readForm(html)));
    expect(form.xml).toContain('EncryptedAssertion');
    expect(form.xml).toContain('http://www.w3.org/2009/xmlenc11#aes256-gcm');
    expect(form.xml).not.toContain('bob@example.com');
    const { profile } = await sp.validatePostResponseAsync({ SAMLResponse: form.fields.SAMLResponse });
    expect(profile?.nameIDFormat).toBe('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
    expect(profile?.nameID).not.toBe('bob');
    expect(profile?.['urn:oid:0.9.2342.19200300.100.1.1']).toBe('bob');
  });

  it('[saml-core-001] the second SP of one browser session is answered without a new login', async () => {
    const browser = new SamlBrowser(peer.server.url, 'alice');
    const first = nodeSaml('demo-sp');
    await browser.responseForm(await browser.sso({ url: await first.getAuthorizeUrlAsync('', undefined, {}) }));
    const second = nodeSaml('demo-sp-strict');
    const answer = await browser.fetch(await second.getAuthorizeUrlAsync('', undefined, {}));
    expect(answer.status).toBe(200);
    const { profile } = await second.validatePostResponseAsync({
      SAMLResponse: readForm(await answer.text()).fields.SAMLResponse,
    });
    expect(profile?.['urn:oid:0.9.2342.19200300.100.1.1']).toBe('alice');
  });
});
