import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMainServer, type TestServer } from '../../support/main-server.ts';
import { demoSps, idpCertificate, SamlBrowser, clockToRealTime } from '../../support/saml.ts';

// pysaml2 as a third opinion: Debian's python3-pysaml2, which checks XML signatures with Debian's xmlsec1
// (installed by .ci/run; PyPI is not reachable). Its metadata parser, signature checks and response
// rules judge what our IdP publishes and sends.
const PYTHON = '/usr/bin/python3';
const SCRIPT = new URL('./pysaml2/sp.py', import.meta.url).pathname;
const available = existsSync('/usr/bin/xmlsec1') && spawnSync(PYTHON, ['-c', 'import saml2']).status === 0;
if (!available && process.env.CI === 'true')
  throw new Error('python3-pysaml2 and xmlsec1 are required in CI (.ci/run installs them)');

let server: TestServer;
let base: Record<string, unknown>;

const pysaml2 = (command: Record<string, unknown>) => {
  clockToRealTime(server.clock)();
  const run = spawnSync(PYTHON, [SCRIPT], { input: JSON.stringify({ ...base, ...command }), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`pysaml2 failed: ${run.stderr.split('\n').slice(-6).join('\n')}`);
  return JSON.parse(run.stdout) as Record<string, any>;
};

beforeAll(async () => {
  server = await startMainServer();
  const published = (await demoSps(server.url)).service_providers.find((sp) => sp.id === 'demo-sp')!;
  base = {
    sp_entity_id: `${server.url}/saml/demo/sps/demo-sp`,
    sp_key: published.published_private_key_pem,
    sp_cert: published.certificate_pem,
    idp_metadata: await (await fetch(`${server.url}/saml/idp/metadata`)).text(),
    acs: 'http://127.0.0.1:8765/saml/acs',
    slo: 'http://127.0.0.1:8765/saml/slo',
  };
}, 30_000);
beforeEach(() => clockToRealTime(server.clock)());
afterAll(() => server.close());

describe.runIf(available)('pysaml2 (xmlsec1) as demo-sp against our IdP', () => {
  it('[saml-metadata-001] reads our IdP metadata, whose signature xmlsec1 verifies: entity ID and the HTTP-Redirect SSO endpoint', async () => {
    const cert = await idpCertificate(server.url);
    const answer = pysaml2({ step: 'metadata', idp_cert: cert });
    expect(answer).toEqual({
      entity_id: `${server.url}/saml/idp`,
      sso: `${server.url}/saml/idp/sso`,
      signature_valid: true,
    });
    // A metadata document changed after signing does not verify.
    const tampered = String(base.idp_metadata).replace(
      'WantAuthnRequestsSigned="false"',
      'WantAuthnRequestsSigned="true"',
    );
    expect(tampered).not.toBe(base.idp_metadata);
    expect(pysaml2({ step: 'metadata', idp_metadata: tampered, idp_cert: cert }).signature_valid).toBe(false);
  });

  it('[saml-profiles-007] accepts the signed assertion our IdP sends in answer to its AuthnRequest, InResponseTo and all', async () => {
    const { url, request_id } = pysaml2({ step: 'authn-request' });
    const browser = new SamlBrowser(server.url, 'alice');
    const form = await browser.responseForm(await browser.sso({ url }));
    expect(form.fields.RelayState).toBe('py-relay');
    const answer = pysaml2({ step: 'response', saml_response: form.fields.SAMLResponse, request_id });
    expect(answer.issuer).toBe(`${server.url}/saml/idp`);
    expect(answer.name_id).toBe('alice@example.com');
    expect(answer.attributes.uid ?? answer.attributes['urn:oid:0.9.2342.19200300.100.1.1']).toEqual(['alice']);
    expect(answer.session_index).toMatch(/^_[0-9a-f]{40}$/);
    // A response answering another request is refused by pysaml2 too.
    const other = pysaml2({ step: 'authn-request' });
    const second = await browser.responseForm(await browser.fetch(other.url));
    expect(() =>
      pysaml2({ step: 'response', saml_response: second.fields.SAMLResponse, request_id: '_not-that-one' }),
    ).toThrow(/pysaml2 failed/);
  });

  it('[saml-profiles-012] verifies the signature of our IdP’s LogoutRequest over HTTP-Redirect and reads its principal', async () => {
    const { url } = pysaml2({ step: 'authn-request' });
    const browser = new SamlBrowser(server.url, 'alice');
    const form = await browser.responseForm(await browser.sso({ url }));
    const sessionIndex = /SessionIndex="([^"]+)"/.exec(Buffer.from(form.fields.SAMLResponse, 'base64').toString())?.[1];
    const out = await browser.fetch(`${server.url}/saml/idp/logout`, { method: 'POST' });
    expect(out.status, await out.clone().text()).toBe(303);
    const answer = pysaml2({
      step: 'logout-request',
      url: out.headers.get('location'),
      idp_cert: await idpCertificate(server.url),
    });
    expect(answer).toMatchObject({
      signature_valid: true,
      issuer: `${server.url}/saml/idp`,
      name_id: 'alice@example.com',
    });
    if (sessionIndex) expect(answer.session_index).toEqual([sessionIndex]);
  });
});
