import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holderKey, issueFromOurIssuer } from '../../support/holder.ts';
import { startMainServer, type TestServer } from '../../support/main-server.ts';

// Issue 14: the looking glass page decodes credentials too, with disclosures and digest verdicts per element.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const post = async (fields: Record<string, string>, accept = 'text/html') => {
  const res = await fetch(`${server.url}/looking-glass`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, text: await res.text(), cache: res.headers.get('cache-control') };
};

describe('the looking glass page decodes credentials', () => {
  it('an SD-JWT VC: the issuer signature, each disclosure referenced by the signed payload; an mdoc: each element with its digest verdict', async () => {
    const holder = await holderKey();
    const nowS = Math.floor(server.clock.now() / 1000);
    const sdJwt = (await issueFromOurIssuer(server.url, 'UniversityDegreeCredential', holder, nowS)) as string;
    const page = await post({ credential: sdJwt });
    expect(page.status).toBe(200);
    expect(page.cache).toBe('no-store');
    expect(page.text).toContain('<code>dc+sd-jwt</code>');
    expect(page.text).toMatch(/class="notice ok" role="note">Issuer signature: /);
    expect(page.text).toContain('<h3>Disclosures</h3>');
    expect(page.text).toMatch(
      /<code>degree<\/code><\/td><td>Bachelor of Science<\/td><td><code>[A-Za-z0-9_-]+<\/code><\/td><td>yes<\/td>/,
    );
    const twin = await post({ credential: sdJwt }, 'text/markdown');
    expect(twin.text).toContain('### Disclosures');

    const mdoc = (await issueFromOurIssuer(server.url, 'MobileDrivingLicenceMsoMdoc', holder, nowS)) as string;
    const mdocPage = await post({ credential: mdoc });
    expect(mdocPage.text).toContain('<h3>Elements</h3>');
    expect(mdocPage.text).toMatch(/<code>family_name<\/code><\/td><td>[^<]+<\/td><td>matches \(digest \d+\)<\/td>/);
    expect(mdocPage.text).not.toContain('DOES NOT MATCH');
  });

  it('what cannot be decoded is said on the page, never a 5xx', async () => {
    for (const credential of ['not a credential', '{"broken json', '{"vp": []}', 'a.b.c~']) {
      const page = await post({ credential });
      expect(page.status, credential).toBe(200);
      expect(page.text).toMatch(/class="notice error" role="alert"/);
    }
  });

  it("sample tokens of this origin's issuers verify with their keys, and are expired and addressed to no real audience", async () => {
    const page = await (await fetch(`${server.url}/looking-glass`, { headers: { accept: 'text/html' } })).text();
    const samples = [...page.matchAll(/name="token" value="([^"]+)"/g)].map((m) => m[1]);
    expect(samples).toHaveLength(3);
    for (const token of samples) {
      const decoded = await post({ token });
      expect(decoded.text).toMatch(/class="notice ok" role="note">Signature verified with this origin/);
      const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as {
        exp: number;
        aud: string;
      };
      expect(payload.exp * 1000).toBeLessThan(server.clock.now());
      expect(payload.aud).toBe('https://sample.invalid');
    }
  });
});
