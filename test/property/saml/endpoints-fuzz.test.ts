import fc from 'fast-check';
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 49: hostile SAML at every endpoint that reads one, over HTTP: a named refusal or an answer, never a
// 5xx and never the framework's own error shape.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(() => server.close());

const piece = fc.oneof(
  fc.constantFrom(
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
    '&e;',
    '<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_1" Version="2.0">',
    '</samlp:AuthnRequest>',
    '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_2">',
    '</samlp:Response>',
    '<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_3">',
    '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"/>',
    '<![CDATA[x]]>',
    '<!-- c -->',
    '<?pi x?>',
  ),
  fc.string({ maxLength: 12 }),
);
const message = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe('SAML endpoints on hostile input', () => {
  it('never answer 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(message, fc.boolean(), async (xml, deflate) => {
        const encoded = deflate
          ? deflateRawSync(Buffer.from(xml)).toString('base64')
          : Buffer.from(xml).toString('base64');
        const calls: Array<[string, RequestInit]> = [
          [`/saml/idp/sso?SAMLRequest=${encodeURIComponent(encoded)}`, {}],
          [`/saml/idp/slo?SAMLRequest=${encodeURIComponent(encoded)}`, {}],
          [`/saml/sp/slo?SAMLResponse=${encodeURIComponent(encoded)}`, {}],
          ['/saml/idp/sso', form({ SAMLRequest: encoded })],
          ['/saml/idp/slo', form({ SAMLResponse: encoded })],
          ['/saml/sp/acs', form({ SAMLResponse: encoded })],
          ['/saml/demo/acs', form({ SAMLResponse: encoded })],
          ['/api/lookingglass/decode/saml', json({ message: xml || 'x' })],
        ];
        for (const [path, init] of calls) {
          const response = await fetch(`${server.url}${path}`, { ...init, redirect: 'manual' });
          expect(response.status, `${path}: ${xml}`).toBeLessThan(500);
          await response.arrayBuffer();
        }
      }),
      { numRuns: 40 },
    );
  });
});
