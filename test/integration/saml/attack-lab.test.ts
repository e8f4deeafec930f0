import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 49: the attack lab against our own SP, which must refuse every attack with a named check, and
// against a deliberately naive SP written here, whose acceptance of every attack the lab must report.
let server: TestServer;
let naive: Server;
let naiveUrl: string;
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';

/**
 * The naive SP: reads the first NameID's first text node with a regex, checks no signature, audience,
 * recipient, time or replay, and inflates whatever reaches its Redirect endpoint.
 */
function startNaiveSp(): Promise<void> {
  naive = createServer((request, response) => {
    const url = new URL(request.url!, 'http://naive');
    if (request.method === 'GET' && url.pathname === '/metadata') {
      const md = 'urn:oasis:names:tc:SAML:2.0:metadata';
      response
        .writeHead(200, { 'content-type': 'application/samlmetadata+xml' })
        .end(
          `<md:EntityDescriptor xmlns:md="${md}" entityID="https://naive-sp.example"><md:SPSSODescriptor WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${naiveUrl}/slo"/><md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${naiveUrl}/acs" index="0"/></md:SPSSODescriptor></md:EntityDescriptor>`,
        );
      return;
    }
    if (request.method === 'GET' && url.pathname === '/slo') {
      const size = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).length;
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`inflated ${size} bytes`);
      return;
    }
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const xml = Buffer.from(new URLSearchParams(body).get('SAMLResponse') ?? '', 'base64').toString();
      const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
      // The Response's own Assertion child (else the first anywhere), its Subject's NameID, first text node only.
      const direct = Array.from(root.childNodes).find((n) => (n as Element).localName === 'Assertion') as
        Element | undefined;
      const assertion = direct ?? root.getElementsByTagNameNS(SAML, 'Assertion')[0];
      const subject =
        assertion &&
        (Array.from(assertion.childNodes).find((n) => (n as Element).localName === 'Subject') as Element | undefined);
      const name = subject?.getElementsByTagNameNS(SAML, 'NameID')[0]?.firstChild?.nodeValue ?? 'nobody';
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`Welcome ${name}`);
    });
  });
  return new Promise((resolve) => naive.listen(0, '127.0.0.1', () => resolve()));
}

beforeAll(async () => {
  server = await startMainServer({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  await startNaiveSp();
  naiveUrl = `http://127.0.0.1:${(naive.address() as AddressInfo).port}`;
});
afterAll(async () => {
  naive.close();
  await server.close();
});

const ATTACK_NAMES = [
  'XSW1',
  'XSW2',
  'XSW3',
  'XSW4',
  'XSW5',
  'XSW6',
  'XSW7',
  'XSW8',
  'comment-in-nameid',
  'unsigned-assertion-in-signed-response',
  'signature-stripped',
  'sha1-downgrade',
  'hmac-downgrade',
  'xxe-dtd',
  'deflate-bomb',
  'replayed-assertion',
  'wrong-audience',
  'wrong-recipient',
  'expired-assertion',
];

describe('saml/attack-lab', () => {
  it('[saml-profiles-002] our SP passes the baseline and refuses every attack, each with the check that caught it', async () => {
    const res = await fetch(`${server.url}/api/protocols/saml/demo/attack-lab`, json({}));
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(201);
    expect(body.status, body.error).toBe('succeeded');
    const checks = body.checks as Array<{ check: string; verdict: string; detail: string }>;
    expect(checks.map((c) => c.check)).toEqual(['baseline', ...ATTACK_NAMES]);
    for (const c of checks) expect(c.verdict, `${c.check}: ${c.detail}`).toBe('passed');
    // Every attack was answered by a 4xx naming its check, never a 5xx.
    const attacks = (body.exchanges as any[]).filter((x) => x.step.startsWith('Attack'));
    expect(attacks.every((x) => x.response.status < 500)).toBe(true);
    const refusedBy = Object.fromEntries(
      attacks
        .filter((x) => x.response.status === 400)
        .map((x) => [x.step.replace('Attack ', ''), x.response.body?.check]),
    );
    // Every attack is refused (the first of the replayed pair is the valid Response itself).
    expect(attacks.filter((x) => x.response.status !== 400).map((x) => x.step)).toEqual(['Attack replayed-assertion']);
    expect(refusedBy).toMatchObject({
      XSW1: 'signature_reference',
      XSW7: 'assertion_count',
      'comment-in-nameid': 'xml_comment',
      XSW3: 'assertion_count',
      XSW4: 'signature_missing',
      'signature-stripped': 'signature_missing',
      'sha1-downgrade': 'signature_algorithm',
      'hmac-downgrade': 'signature_algorithm',
      'xxe-dtd': 'xml_dtd',
      'deflate-bomb': 'xml_size',
      'wrong-audience': 'audience',
      'wrong-recipient': 'recipient',
      'expired-assertion': 'expired',
      'replayed-assertion (again)': 'replay',
    });
  });

  it('[saml-core-002] against a naive SP as a target (by its ACS URL, and by its metadata URL), the lab reports each attack it falls for', async () => {
    for (const target of [
      { acs_url: `${naiveUrl}/acs`, entity_id: 'https://naive-sp.example', slo_url: `${naiveUrl}/slo` },
      { metadata_url: `${naiveUrl}/metadata` },
    ]) {
      const res = await fetch(`${server.url}/api/protocols/saml/demo/attack-lab`, json({ target }));
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body).slice(0, 400)).toBe(201);
      expect(body.status, body.error).toBe('succeeded');
      const checks = body.checks as Array<{ check: string; verdict: string; detail: string }>;
      expect(checks[0]).toMatchObject({ check: 'baseline', verdict: 'passed' });
      // It reads the Response's own Assertion child, so the copy hidden in Extensions (XSW7) does not fool it.
      for (const c of checks.slice(1))
        expect(c.verdict, `${c.check}: ${c.detail}`).toBe(c.check === 'XSW7' ? 'passed' : 'failed');
      expect(checks.find((c) => c.check === 'XSW7')!.detail).toContain('consumed only the signed assertion');
      expect(checks.find((c) => c.check === 'comment-in-nameid')!.detail).toContain('cut at the comment');
      expect(checks.find((c) => c.check === 'XSW3')!.detail).toContain('signed in admin@example.com');
    }
  });
});
