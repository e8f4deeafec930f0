import { createRequire } from 'node:module';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, json, startMainServer, type TestServer } from '../../support/main-server.ts';

// jsqr is CommonJS whose module object is the function itself.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default;

// Issue 47: every request's and offer's handoff link as a QR code, read back by an independent decoder
// (jsQR over pngjs; neither is what draws them).
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

async function decodePng(url: string): Promise<string> {
  const res = await fetch(url, { headers: { accept: 'image/png' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/png');
  const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  expect(code, 'a QR code is found in the PNG').not.toBeNull();
  return code!.data;
}
const create = async (body: Record<string, unknown>) => {
  const created = await exchange(server.url, '/oid4vp/request/create', json(body));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
};

describe('QR codes of handoff links', () => {
  it('a by-reference request: the PNG at request_uri reads back as authorization_request_uri, and fetches nothing', async () => {
    const created = await create({ client_id_prefix: 'x509_hash' });
    expect(await decodePng(created.request_uri)).toBe(created.authorization_request_uri);
    const status = await exchange(server.url, `/oid4vp/result/${created.transaction_id}`, { method: 'GET' });
    expect(status.body.status).toBe('created');
    // A wallet (no Accept, or */*) still gets the request object.
    const object = await fetch(created.request_uri, { headers: { accept: '*/*' } });
    expect(object.headers.get('content-type')).toMatch(/^application\/oauth-authz-req\+jwt/);
  });

  it('a by-value request (redirect_uri): its whole openid4vp:// link, byte for byte', async () => {
    const created = await create({});
    expect(await decodePng(`${server.url}/oid4vp/request/${created.request_id}`)).toBe(
      created.authorization_request_uri,
    );
  });

  it('a HAIP request: the haip-vp:// form', async () => {
    const created = await create({ profile: 'haip' });
    expect(created.haip_authorization_request_uri).toBe(
      created.authorization_request_uri.replace(/^openid4vp:/, 'haip-vp:'),
    );
    expect(await decodePng(created.request_uri)).toBe(created.haip_authorization_request_uri);
  });

  it('an offer: the PNG at its own URL reads back as its by-reference openid-credential-offer:// link', async () => {
    const offer = (
      await exchange(
        server.url,
        '/oid4vci/offers',
        json({ credential_configuration_ids: ['UniversityDegreeCredential'] }),
      )
    ).body;
    expect(await decodePng(offer.credential_offer_uri)).toBe(offer.offer_url);
    const document = await fetch(offer.credential_offer_uri);
    expect(((await document.json()) as Record<string, unknown>).credential_issuer).toBe(`${server.url}/oid4vci`);
  });

  it('in a browser: a page with the SVG code and the link; unknown or answered requests have none', async () => {
    const created = await create({ client_id_prefix: 'x509_hash' });
    const page = await fetch(created.request_uri, { headers: { accept: 'text/html' } });
    const html = await page.text();
    expect(html).toContain('<svg role="img" aria-label="QR code of a presentation request"');
    expect(html).toContain('openid4vp://?client_id=x509_hash');
    const markdown = await (await fetch(created.request_uri, { headers: { accept: 'text/markdown' } })).text();
    expect(markdown).toContain('# A presentation request');
    const unknown = await fetch(`${server.url}/oid4vp/request/AAAAAAAAAAAAAAAAAAAAAAAA`, {
      headers: { accept: 'image/png' },
    });
    expect(unknown.status).toBe(404);
    const dc = await create({ response_mode: 'dc_api' });
    expect(
      (await fetch(`${server.url}/oid4vp/request/${dc.request_id}`, { headers: { accept: 'image/png' } })).status,
    ).toBe(404);
  });
});
