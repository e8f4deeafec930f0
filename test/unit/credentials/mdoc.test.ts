import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { generateKeyPair } from 'jose';
import { webcrypto } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateHolderKey, jwkThumbprintBytes } from '../../../services/credentials/keys/index.ts';
import {
  Tag,
  createDeviceResponse,
  createDocumentSigner,
  createIacaRoot,
  dataItem,
  dataItemBytes,
  decodeCbor,
  encodeCbor,
  oid4vpHandover,
  oid4vpSessionTranscript,
  parseIssuerSigned,
  verifyDeviceResponse,
  verifyIssuerSigned,
  type IssuerSigned,
} from '../../../services/credentials/mdoc/index.ts';
import { NOW } from './helpers.ts';
import { at, issueMdl, mdocFixture, type MdocFixture } from './mdoc-helpers.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const NS = 'org.iso.18013.5.1';
let fx: MdocFixture;
let issued: ReturnType<typeof issueMdl>;
const request = {
  clientId: 'x509_san_dns:verifier.example',
  nonce: 'n-0S6_WzA2Mj',
  responseUri: 'https://verifier.example/response',
};
let transcript: unknown[];

beforeAll(async () => {
  fx = await mdocFixture(NOW);
  issued = issueMdl(fx, NOW);
  transcript = await oid4vpSessionTranscript(request);
});

const trust = () => ({ trustedRoots: [fx.iaca.certificate], now: NOW });
const respond = (overrides: Partial<Parameters<typeof createDeviceResponse>[0]> = {}) =>
  createDeviceResponse({
    issuerSigned: issued.issuerSigned,
    disclose: { [NS]: ['given_name', 'age_over_18'] },
    deviceKey: { privateKey: fx.device.privateKey },
    sessionTranscript: transcript,
    ...overrides,
  });

/** Decodes a DeviceResponse, lets `edit` change its first document, and re-encodes it. */
function editDocument(response: Uint8Array, edit: (doc: Map<string, unknown>) => void): Uint8Array {
  const decoded = decodeCbor(response) as Map<string, unknown>;
  edit((decoded.get('documents') as Map<string, unknown>[])[0]);
  return encodeCbor(decoded);
}

describe('OpenID4VP session transcript', () => {
  it('reproduces the OpenID4VP 1.0 Appendix B.2.6.1 example byte for byte', async () => {
    const encryptionKey = {
      kty: 'EC',
      crv: 'P-256',
      x: 'DxiH5Q4Yx3UrukE2lWCErq8N8bqC9CHLLrAwLz5BmE0',
      y: 'XtLM4-3h5o3HUH0MHVJV0kyq0iBlrBwlh8qEDMZ4-Pc',
      use: 'enc',
      alg: 'ECDH-ES',
      kid: '1',
    };
    const input = {
      clientId: 'x509_san_dns:example.com',
      nonce: 'exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA',
      responseUri: 'https://example.com/response',
      encryptionKey,
    };
    expect(hex(await jwkThumbprintBytes(encryptionKey))).toBe(
      '4283ec927ae0f208daaa2d026a814f2b22dca52cf85ffa8f3f8626c6bd669047',
    );
    expect(hex(encodeCbor(await oid4vpHandover(input)))).toBe(
      '82714f70656e494434565048616e646f7665725820048bc053c00442af9b8eed494cefdd9d95240d254b046b11b68013722aad38ac',
    );
    expect(hex(encodeCbor(await oid4vpSessionTranscript(input)))).toBe(
      '83f6f682714f70656e494434565048616e646f7665725820048bc053c00442af9b8eed494cefdd9d95240d254b046b11b68013722aad38ac',
    );
  });

  it('binds every parameter: changing any one changes the transcript', async () => {
    const base = hex(encodeCbor(transcript));
    const key = (await generateHolderKey('ES256')).publicJwk;
    for (const change of [
      { clientId: 'x509_san_dns:evil.example' },
      { nonce: 'other' },
      { responseUri: 'https://evil.example/response' },
      { encryptionKey: key },
    ]) {
      expect(hex(encodeCbor(await oid4vpSessionTranscript({ ...request, ...change })))).not.toBe(base);
    }
  });
});

describe('mdoc issuance', () => {
  it('wraps each element as a tag-24 IssuerSignedItem with a 32-byte salt and a distinct digestID', () => {
    const items = issued.issuerSigned.nameSpaces.get(NS)!;
    const decoded = items.map((t) => decodeCbor(dataItemBytes(t)) as Map<string, unknown>);
    expect(decoded.map((d) => d.get('elementIdentifier')).sort()).toEqual([
      'age_over_18',
      'birth_date',
      'document_number',
      'family_name',
      'given_name',
      'issuing_country',
      'portrait',
    ]);
    expect(new Set(decoded.map((d) => d.get('digestID'))).size).toBe(items.length);
    for (const d of decoded) expect((d.get('random') as Uint8Array).length).toBe(32);
    expect([...decoded[0].keys()]).toEqual(['random', 'digestID', 'elementValue', 'elementIdentifier']); // deterministic key order
  });

  it('signs an MSO (version, SHA-256, valueDigests, deviceKeyInfo COSE_Key, docType, validityInfo tdates) with the DS certificate in x5chain', () => {
    const [protectedBytes, unprotected, payload] = issued.issuerSigned.issuerAuth;
    expect(decodeCbor(protectedBytes)).toEqual(new Map([[1, -7]]));
    expect(hex(unprotected.get(33) as Uint8Array)).toBe(hex(fx.signer.certificate));
    const mso = decodeCbor(dataItemBytes(decodeCbor(payload!))) as Map<string, unknown>;
    expect(mso.get('version')).toBe('1.0');
    expect(mso.get('digestAlgorithm')).toBe('SHA-256');
    expect(mso.get('docType')).toBe('org.iso.18013.5.1.mDL');
    const deviceKey = (mso.get('deviceKeyInfo') as Map<string, Map<number, unknown>>).get('deviceKey')!;
    expect([deviceKey.get(1), deviceKey.get(-1)]).toEqual([2, 1]);
    const validity = mso.get('validityInfo') as Map<string, Tag>;
    expect(validity.get('validFrom')).toEqual(new Tag('2025-12-31T23:59:00Z', 0));
  });

  it('the IssuerSigned verifies against the IACA root (wallet behaviour 10)', async () => {
    const r = await verifyIssuerSigned(issued.encoded, trust());
    expect(r.valid).toBe(true);
    if (!r.valid) return;
    expect(r.docType).toBe('org.iso.18013.5.1.mDL');
    expect(r.claims[NS]).toMatchObject({
      given_name: 'Alice',
      age_over_18: true,
      birth_date: new Tag('1990-04-12', 1004),
    });
    expect(r.deviceKey).toEqual(fx.device.publicJwk);
    expect(r.signer.subject).toContain('Document Signer');
  });
});

describe('mdoc IssuerSigned verification names the failing check', () => {
  it('no trusted root, or another IACA -> chain', async () => {
    expect(await verifyIssuerSigned(issued.encoded, { ...trust(), trustedRoots: [] })).toMatchObject({
      valid: false,
      check: 'chain',
    });
    const otherIaca = await createIacaRoot({ notBefore: at(NOW - 86_400), notAfter: at(NOW + 86_400 * 365) });
    expect(await verifyIssuerSigned(issued.encoded, { ...trust(), trustedRoots: [otherIaca.pem] })).toMatchObject({
      valid: false,
      check: 'chain',
    });
  });

  it('a document signer issued by an untrusted IACA -> chain (broken chain)', async () => {
    const rogueIaca = await createIacaRoot({
      name: 'CN=Rogue IACA, C=FR',
      notBefore: at(NOW - 86_400),
      notAfter: at(NOW + 86_400 * 365),
    });
    const rogue = await createDocumentSigner({
      iaca: rogueIaca,
      notBefore: at(NOW - 86_400),
      notAfter: at(NOW + 86_400 * 365),
    });
    const forged = issueMdl(fx, NOW, {
      signer: { privateKey: rogue.privateKey, x5chain: [rogue.certificate, fx.iaca.certificate] },
    });
    const r = await verifyIssuerSigned(forged.encoded, trust());
    expect(r).toMatchObject({ valid: false, check: 'chain' });
  });

  it('an expired document signer -> chain', async () => {
    const expired = await createDocumentSigner({
      iaca: fx.iaca,
      notBefore: at(NOW - 90 * 86_400),
      notAfter: at(NOW - 86_400),
    });
    const doc = issueMdl(fx, NOW, {
      signer: { privateKey: expired.privateKey, x5chain: [expired.certificate] },
      signed: NOW - 2 * 86_400,
      validFrom: NOW - 2 * 86_400,
    });
    expect(await verifyIssuerSigned(doc.encoded, trust())).toMatchObject({
      valid: false,
      check: 'chain',
      reason: expect.stringContaining('not valid at the verification time'),
    });
  });

  it('a document signer certificate without the mdoc extended key usage -> chain', async () => {
    const keys = (await generateKeyPair('ES256', { extractable: true })) as CryptoKeyPair;
    const cert = await x509.X509CertificateGenerator.create(
      {
        subject: 'CN=No EKU signer, C=FR',
        issuer: new x509.X509Certificate(Buffer.from(fx.iaca.certificate)).subject,
        notBefore: at(NOW - 86_400),
        notAfter: at(NOW + 86_400 * 30),
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
        publicKey: keys.publicKey,
        signingKey: fx.iaca.privateKey,
        extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
      },
      webcrypto as unknown as Crypto,
    );
    const doc = issueMdl(fx, NOW, { signer: { privateKey: keys.privateKey, x5chain: [new Uint8Array(cert.rawData)] } });
    expect(await verifyIssuerSigned(doc.encoded, trust())).toMatchObject({
      valid: false,
      check: 'chain',
      reason: expect.stringContaining('1.0.18013.5.1.2'),
    });
  });

  it('a changed element value -> digest; a changed MSO -> signature', async () => {
    const tampered: IssuerSigned = parseIssuerSigned(issued.encoded);
    const items = [...tampered.nameSpaces.get(NS)!];
    const first = decodeCbor(dataItemBytes(items[0])) as Map<string, unknown>;
    first.set('elementValue', 'Mallory');
    items[0] = dataItem(first);
    tampered.nameSpaces.set(NS, items);
    expect(
      await verifyIssuerSigned(
        encodeCbor(
          new Map<string, unknown>([
            ['nameSpaces', tampered.nameSpaces],
            ['issuerAuth', tampered.issuerAuth],
          ]),
        ),
        trust(),
      ),
    ).toMatchObject({ valid: false, check: 'digest' });

    const [p, u, payload, sig] = issued.issuerSigned.issuerAuth;
    const mso = decodeCbor(dataItemBytes(decodeCbor(payload!))) as Map<string, unknown>;
    (mso.get('validityInfo') as Map<string, unknown>).set('validUntil', new Tag('2099-01-01T00:00:00Z', 0));
    const forged = new Map<string, unknown>([
      ['nameSpaces', issued.issuerSigned.nameSpaces],
      ['issuerAuth', [p, u, encodeCbor(dataItem(mso)), sig]],
    ]);
    expect(await verifyIssuerSigned(encodeCbor(forged), trust())).toMatchObject({ valid: false, check: 'signature' });
  });

  it('an item whose digestID is not in the MSO -> digest', async () => {
    const items = [...issued.issuerSigned.nameSpaces.get(NS)!];
    const first = decodeCbor(dataItemBytes(items[0])) as Map<string, unknown>;
    first.set('digestID', 999);
    const ns = new Map(issued.issuerSigned.nameSpaces).set(NS, [dataItem(first), ...items.slice(1)]);
    expect(
      await verifyIssuerSigned(
        encodeCbor(
          new Map<string, unknown>([
            ['nameSpaces', ns],
            ['issuerAuth', issued.issuerSigned.issuerAuth],
          ]),
        ),
        trust(),
      ),
    ).toMatchObject({ valid: false, check: 'digest' });
  });

  it('before validFrom or after validUntil -> validity; the wrong docType -> doctype', async () => {
    expect(await verifyIssuerSigned(issued.encoded, { ...trust(), now: NOW + 31 * 86_400 })).toMatchObject({
      valid: false,
      check: 'validity',
      reason: expect.stringContaining('expired'),
    });
    expect(await verifyIssuerSigned(issued.encoded, { ...trust(), now: NOW - 3600 })).toMatchObject({
      valid: false,
      check: 'validity',
      reason: expect.stringContaining('not yet valid'),
    });
    expect(
      await verifyIssuerSigned(issued.encoded, { ...trust(), expectedDocType: 'eu.europa.ec.eudi.pid.1' }),
    ).toMatchObject({ valid: false, check: 'doctype' });
  });

  it('garbage -> format, never an exception', async () => {
    for (const bytes of [
      new Uint8Array(),
      new Uint8Array([0xff]),
      encodeCbor([1, 2]),
      encodeCbor(new Map([['issuerAuth', [1, 2, 3, 4]]])),
    ])
      expect(await verifyIssuerSigned(bytes, trust())).toMatchObject({ valid: false, check: 'format' });
  });
});

describe('mdoc DeviceResponse', () => {
  it('releases only the chosen elements and verifies over the same session transcript', async () => {
    const r = await verifyDeviceResponse(respond(), { ...trust(), sessionTranscript: transcript });
    expect(r.valid).toBe(true);
    if (!r.valid) return;
    expect(r.documents[0].claims).toEqual({ [NS]: { given_name: 'Alice', age_over_18: true } });
    const doc = (decodeCbor(respond()) as Map<string, unknown>).get('documents') as Map<string, Map<string, unknown>>[];
    const deviceSignature = (doc[0].get('deviceSigned')!.get('deviceAuth') as Map<string, unknown[]>).get(
      'deviceSignature',
    )!;
    expect(deviceSignature[2]).toBeNull(); // detached payload
  });

  it('a device signature over another transcript (other nonce, client_id or encryption key) -> device_authentication', async () => {
    for (const change of [
      { nonce: 'replayed' },
      { clientId: 'x509_san_dns:evil.example' },
      { encryptionKey: new Uint8Array(32) },
    ]) {
      const other = await oid4vpSessionTranscript({ ...request, ...change });
      expect(
        await verifyDeviceResponse(respond({ sessionTranscript: other }), {
          ...trust(),
          sessionTranscript: transcript,
        }),
      ).toMatchObject({ valid: false, check: 'device_authentication' });
    }
  });

  it('signed with a key other than the one bound at issuance (OpenID4VP wallet behaviour 3) -> device_authentication', async () => {
    const ephemeral = await generateHolderKey('ES256');
    expect(
      await verifyDeviceResponse(respond({ deviceKey: { privateKey: ephemeral.privateKey } }), {
        ...trust(),
        sessionTranscript: transcript,
      }),
    ).toMatchObject({ valid: false, check: 'device_authentication' });
  });

  it('no deviceSigned, a deviceMac, or device namespaces changed after signing -> device_authentication', async () => {
    const opts = { ...trust(), sessionTranscript: transcript };
    expect(
      await verifyDeviceResponse(
        editDocument(respond(), (d) => d.delete('deviceSigned')),
        opts,
      ),
    ).toMatchObject({ valid: false, check: 'device_authentication' });
    expect(
      await verifyDeviceResponse(
        editDocument(respond(), (d) =>
          (d.get('deviceSigned') as Map<string, Map<string, unknown>>)
            .get('deviceAuth')!
            .set('deviceMac', [new Uint8Array(), new Map(), null, new Uint8Array(32)]),
        ),
        opts,
      ),
    ).toMatchObject({ valid: false, check: 'device_authentication' });
    expect(
      await verifyDeviceResponse(
        editDocument(respond(), (d) =>
          (d.get('deviceSigned') as Map<string, unknown>).set(
            'nameSpaces',
            dataItem(new Map([[NS, new Map([['given_name', 'Mallory']])]])),
          ),
        ),
        opts,
      ),
    ).toMatchObject({ valid: false, check: 'device_authentication' });
  });

  it('a document docType that differs from the MSO -> doctype; a digest-mismatching released item -> digest', async () => {
    const opts = { ...trust(), sessionTranscript: transcript };
    expect(
      await verifyDeviceResponse(
        editDocument(respond(), (d) => d.set('docType', 'eu.europa.ec.eudi.pid.1')),
        opts,
      ),
    ).toMatchObject({ valid: false, check: 'doctype' });
    const swapped = editDocument(respond(), (d) => {
      const ns = (d.get('issuerSigned') as Map<string, Map<string, Tag[]>>).get('nameSpaces')!;
      const item = decodeCbor(dataItemBytes(ns.get(NS)![0])) as Map<string, unknown>;
      item.set('elementValue', item.get('elementValue') === true ? false : 'Mallory');
      ns.get(NS)![0] = dataItem(item);
    });
    expect(await verifyDeviceResponse(swapped, opts)).toMatchObject({ valid: false, check: 'digest' });
  });

  it('status other than 0 or a missing version -> format', async () => {
    const opts = { ...trust(), sessionTranscript: transcript };
    const decoded = decodeCbor(respond()) as Map<string, unknown>;
    expect(await verifyDeviceResponse(encodeCbor(new Map(decoded).set('status', 10)), opts)).toMatchObject({
      valid: false,
      check: 'format',
    });
    const noVersion = new Map(decoded);
    noVersion.delete('version');
    expect(await verifyDeviceResponse(encodeCbor(noVersion), opts)).toMatchObject({ valid: false, check: 'format' });
  });
});
