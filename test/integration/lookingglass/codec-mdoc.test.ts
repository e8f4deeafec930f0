import 'reflect-metadata';
import * as cborXEsm from 'cbor-x';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueMdl, mdocFixture } from '../../unit/credentials/mdoc-helpers.ts';
import { json, startMainServer, type TestServer } from '../../support/main-server.ts';

// No static import of @auth0/mdl or @owf/mdoc here: the test loads them half-way, to show the looking
// glass's mdoc decoding does not depend on the cbor-x tag handlers those libraries replace process-wide.
let server: TestServer;
beforeAll(async () => {
  server = await startMainServer();
});
afterAll(async () => {
  await server.close();
});

const decodeCredential = async (credential: string) => {
  const res = await fetch(`${server.url}/api/lookingglass/decode/credential`, json({ credential }));
  return { status: res.status, body: (await res.json()) as any };
};

/**
 * What cbor-x's own decoder makes of a full-date (tag 1004). @auth0/mdl registers its handlers in
 * the CommonJS build of cbor-x, @owf/mdoc in the ES module build (the one services import), so both
 * instances are looked at.
 */
const cborXCjs = createRequire(import.meta.url)('cbor-x') as typeof import('cbor-x');
const fullDateVia = (cborX: typeof import('cbor-x')) =>
  new cborX.Decoder({ mapsAsObjects: false, useRecords: false }).decode(
    new cborX.Encoder({ useRecords: false }).encode(new cborX.Tag('1990-04-12', 1004)),
  );

describe('credential looking glass decodes through the codec layer', () => {
  it('decodes an mdoc issued by services/credentials, before and after @auth0/mdl and @owf/mdoc are imported', async () => {
    const now = Math.floor(server.clock.now() / 1000);
    const fx = await mdocFixture(now);
    const { encoded } = issueMdl(fx, now);
    const credential = Buffer.from(encoded).toString('base64url');

    const before = await decodeCredential(credential);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      format: 'mso_mdoc',
      doctype: 'org.iso.18013.5.1.mDL',
      claims: {
        'org.iso.18013.5.1': {
          family_name: 'Anderson',
          given_name: 'Alice',
          birth_date: '1990-04-12',
          issuing_country: 'FR',
          document_number: 'FR-123456',
          age_over_18: true,
          portrait: { bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0]).toString('base64url') },
        },
        'org.iso.18013.5.1.aamva': { DHS_compliance: 'F' },
      },
      issuer_signature: { verified: true },
      validity: { state: 'valid', valid_from: new Date((now - 60) * 1000).toISOString() },
      digest_algorithm: 'SHA-256',
      warnings: [],
    });
    expect(before.body.elements).toHaveLength(8);
    expect(before.body.elements.every((e: any) => e.digest_matches)).toBe(true);
    expect(before.body.holder_binding.device_key).toBeDefined();

    expect(fullDateVia(cborXCjs)).toBeInstanceOf(cborXCjs.Tag);
    expect(fullDateVia(cborXEsm)).toBeInstanceOf(cborXEsm.Tag);
    await import('@auth0/mdl');
    // The hazard is real in this process: cbor-x now decodes tag 1004 differently...
    expect(fullDateVia(cborXCjs)).not.toBeInstanceOf(cborXCjs.Tag);
    // ...and the looking glass's answer is unchanged,
    expect(await decodeCredential(credential)).toEqual(before);
    // also once @owf/mdoc has replaced the handlers of the ES module build (tags 0, 24, 1004).
    await import('@owf/mdoc');
    expect(fullDateVia(cborXEsm)).not.toBeInstanceOf(cborXEsm.Tag);
    const after = await decodeCredential(credential);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
  });
});
