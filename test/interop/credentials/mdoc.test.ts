/**
 * mdoc cross-checks.
 * - @auth0/mdl 3.x: its Verifier checks our DeviceResponse (IACA chain, IssuerAuth signature, MSO
 *   validity, digests, device signature over the SessionTranscript); its Document and
 *   DeviceResponse builders produce mdocs that our verifier must accept. Its Verifier reads the
 *   system clock (no time injection), so these tests build certificates around the real time.
 * - @owf/mdoc 0.6: its SessionTranscript.forOid4Vp must produce the same bytes as ours, and its
 *   zod-validated parsers must accept our IssuerSigned and DeviceResponse, with each
 *   IssuerSignedItem passing its own digest check. Its full Verifier needs a caller-supplied
 *   MdocContext (COSE, X.509 and hash callbacks); filling that with our own primitives would make it
 *   check us against ourselves, so the end-to-end verification cross-check is @auth0/mdl's.
 */
import 'reflect-metadata';
import { DeviceResponse as AuthDeviceResponse, Document as AuthDocument, MDoc, Verifier } from '@auth0/mdl';
import {
  DeviceResponse as OwfDeviceResponse,
  IssuerSigned as OwfIssuerSigned,
  SessionTranscript as OwfSessionTranscript,
} from '@owf/mdoc';
import { exportJWK, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateHolderKey, jwkThumbprintBytes, type KeyPair } from '../../../services/credentials/keys/index.ts';
import {
  createDeviceResponse,
  createDocumentSigner,
  createIacaRoot,
  dataItem,
  dcApiSessionTranscript,
  decodeCbor,
  encodeCbor,
  fullDate,
  issueMdoc,
  oid4vpSessionTranscript,
  verifyDeviceResponse,
  verifyIssuerSigned,
  type CertifiedKey,
} from '../../../services/credentials/mdoc/index.ts';

const NS = 'org.iso.18013.5.1';
const DOCTYPE = 'org.iso.18013.5.1.mDL';
const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);
const at = (s: number) => new Date(s * 1000);
const request = {
  clientId: 'x509_san_dns:verifier.example',
  nonce: 'Zm9vYmFy-nonce',
  responseUri: 'https://verifier.example/oid4vp/response',
};
const owfCrypto = {
  crypto: { digest: ({ bytes }: { bytes: Uint8Array }) => new Uint8Array(createHash('sha256').update(bytes).digest()) },
} as never;

let iaca: CertifiedKey;
let signer: CertifiedKey;
let device: KeyPair;
let devicePrivate: JWK;
let transcript: unknown[];

beforeAll(async () => {
  iaca = await createIacaRoot({ notBefore: at(now - 365 * DAY), notAfter: at(now + 5 * 365 * DAY) });
  signer = await createDocumentSigner({ iaca, notBefore: at(now - 30 * DAY), notAfter: at(now + 365 * DAY) });
  device = await generateHolderKey('ES256', { extractable: true });
  devicePrivate = await exportJWK(device.privateKey);
  transcript = await oid4vpSessionTranscript(request);
});

const ours = () =>
  issueMdoc({
    docType: DOCTYPE,
    namespaces: {
      [NS]: {
        family_name: 'Anderson',
        given_name: 'Alice',
        birth_date: fullDate('1990-04-12'),
        issuing_country: 'FR',
        age_over_18: true,
      },
    },
    deviceKey: device.publicJwk,
    signer: { privateKey: signer.privateKey, x5chain: [signer.certificate] },
    signed: now - 60,
    validFrom: now - 60,
    validUntil: now + 30 * DAY,
  });

async function auth0Checks(deviceResponse: Uint8Array, roots: string[], sessionTranscript = transcript) {
  const checks: { status: string; check: string; reason?: string }[] = [];
  await new Verifier(roots).verify(deviceResponse, {
    encodedSessionTranscript: encodeCbor(dataItem(sessionTranscript)),
    onCheck: (c) => void checks.push(c),
  });
  return checks;
}

describe('our mdocs checked by @auth0/mdl', () => {
  it('its Verifier passes every check on our DeviceResponse', async () => {
    const response = createDeviceResponse({
      issuerSigned: ours().issuerSigned,
      disclose: { [NS]: ['given_name', 'age_over_18', 'issuing_country'] },
      deviceKey: { privateKey: device.privateKey },
      sessionTranscript: transcript,
    });
    const checks = await auth0Checks(response, [iaca.pem]);
    expect(checks.filter((c) => c.status !== 'PASSED')).toEqual([]);
    expect(checks.map((c) => c.check)).toEqual(
      expect.arrayContaining([
        'Issuer certificate must be valid',
        'Issuer signature must be valid',
        'Device signature must be valid',
      ]),
    );
    expect(checks.length).toBeGreaterThan(10);
  });

  it('its Verifier fails our device signature for another transcript and our chain for another IACA', async () => {
    const response = createDeviceResponse({
      issuerSigned: ours().issuerSigned,
      disclose: 'all',
      deviceKey: { privateKey: device.privateKey },
      sessionTranscript: transcript,
    });
    const other = await oid4vpSessionTranscript({ ...request, nonce: 'replayed' });
    expect(
      (await auth0Checks(response, [iaca.pem], other)).find((c) => c.check === 'Device signature must be valid')
        ?.status,
    ).toBe('FAILED');
    const otherIaca = await createIacaRoot({ notBefore: at(now - DAY), notAfter: at(now + DAY) });
    expect(
      (await auth0Checks(response, [otherIaca.pem])).find((c) => c.check === 'Issuer certificate must be valid')
        ?.status,
    ).toBe('FAILED');
  });
});

describe('@auth0/mdl mdocs checked by ours', () => {
  async function theirs(sessionTranscript: unknown[]) {
    const signed = await new AuthDocument(DOCTYPE)
      .addIssuerNameSpace(NS, {
        family_name: 'Anderson',
        given_name: 'Alice',
        issuing_country: 'FR',
        age_over_18: true,
      })
      .useDigestAlgorithm('SHA-256')
      .addValidityInfo({ signed: at(now - 60), validFrom: at(now - 60), validUntil: at(now + 30 * DAY) })
      .addDeviceKeyInfo({ deviceKey: device.publicJwk })
      .sign({ issuerPrivateKey: await exportJWK(signer.privateKey), issuerCertificate: signer.pem, alg: 'ES256' });
    const issuerSignedOnly = new MDoc([signed]).encode();
    const presentationDefinition = {
      id: 'mdl-request',
      input_descriptors: [
        {
          id: DOCTYPE,
          format: { mso_mdoc: { alg: ['ES256'] } },
          constraints: {
            limit_disclosure: 'required',
            fields: ['given_name', 'age_over_18'].map((e) => ({
              path: [`$['${NS}']['${e}']`],
              intent_to_retain: false,
            })),
          },
        },
      ],
    };
    const response = await AuthDeviceResponse.from(issuerSignedOnly)
      .usingPresentationDefinition(presentationDefinition)
      .usingSessionTranscriptBytes(Buffer.from(encodeCbor(dataItem(sessionTranscript))))
      .authenticateWithSignature(devicePrivate, 'ES256')
      .sign();
    return { issuerSignedOnly, response: response.encode() };
  }

  it('their IssuerSigned and DeviceResponse verify with ours, releasing what they disclosed', async () => {
    const { issuerSignedOnly, response } = await theirs(transcript);
    const issuerSigned = (
      (decodeCbor(issuerSignedOnly) as Map<string, unknown>).get('documents') as Map<string, unknown>[]
    )[0].get('issuerSigned') as Map<unknown, unknown>;
    const full = await verifyIssuerSigned(issuerSigned, { trustedRoots: [iaca.pem], now });
    expect(full).toMatchObject({ valid: true, docType: DOCTYPE, deviceKey: device.publicJwk });
    const r = await verifyDeviceResponse(response, { trustedRoots: [iaca.pem], now, sessionTranscript: transcript });
    expect(r.valid).toBe(true);
    if (r.valid) expect(r.documents[0].claims).toEqual({ [NS]: { given_name: 'Alice', age_over_18: true } });
  });

  it('we name the failing check on theirs: another transcript -> device_authentication, another IACA -> chain, later -> validity', async () => {
    const { response } = await theirs(
      await oid4vpSessionTranscript({ ...request, clientId: 'x509_san_dns:evil.example' }),
    );
    expect(
      await verifyDeviceResponse(response, { trustedRoots: [iaca.pem], now, sessionTranscript: transcript }),
    ).toMatchObject({ valid: false, check: 'device_authentication' });
    const good = (await theirs(transcript)).response;
    const otherIaca = await createIacaRoot({ notBefore: at(now - DAY), notAfter: at(now + DAY) });
    expect(
      await verifyDeviceResponse(good, { trustedRoots: [otherIaca.pem], now, sessionTranscript: transcript }),
    ).toMatchObject({ valid: false, check: 'chain' });
    expect(
      await verifyDeviceResponse(good, {
        trustedRoots: [iaca.pem],
        now: now + 31 * DAY,
        sessionTranscript: transcript,
      }),
    ).toMatchObject({ valid: false, check: 'validity' });
  });
});

describe('@owf/mdoc', () => {
  it('builds the same OpenID4VP SessionTranscript bytes, with and without an encryption key thumbprint', async () => {
    const owf = await OwfSessionTranscript.forOid4Vp(
      { clientId: request.clientId, nonce: request.nonce, responseUri: request.responseUri },
      owfCrypto,
    );
    expect(Buffer.from(owf.encode()).toString('hex')).toBe(Buffer.from(encodeCbor(transcript)).toString('hex'));
    const key = (await generateHolderKey('ES256')).publicJwk;
    const thumbprint = await jwkThumbprintBytes(key);
    const withKey = await OwfSessionTranscript.forOid4Vp({ ...request, jwkThumbprint: thumbprint }, owfCrypto);
    expect(Buffer.from(withKey.encode()).toString('hex')).toBe(
      Buffer.from(encodeCbor(await oid4vpSessionTranscript({ ...request, encryptionKey: key }))).toString('hex'),
    );
  });

  it('builds the same Digital Credentials API SessionTranscript bytes (OpenID4VPDCAPIHandover), with and without a key', async () => {
    const input = { origin: 'https://verifier.example', nonce: request.nonce };
    const owf = await OwfSessionTranscript.forOid4VpDcApi(input, owfCrypto);
    expect(Buffer.from(owf.encode()).toString('hex')).toBe(
      Buffer.from(encodeCbor(await dcApiSessionTranscript(input))).toString('hex'),
    );
    const key = (await generateHolderKey('ES256')).publicJwk;
    const withKey = await OwfSessionTranscript.forOid4VpDcApi(
      { ...input, jwkThumbprint: await jwkThumbprintBytes(key) },
      owfCrypto,
    );
    expect(Buffer.from(withKey.encode()).toString('hex')).toBe(
      Buffer.from(encodeCbor(await dcApiSessionTranscript({ ...input, encryptionKey: key }))).toString('hex'),
    );
    // Not the redirect handover under another name.
    expect(Buffer.from(owf.encode()).toString('hex')).not.toBe(Buffer.from(encodeCbor(transcript)).toString('hex'));
  });

  it('parses our IssuerSigned and DeviceResponse with its schemas, and every item passes its digest check', async () => {
    const issued = ours();
    const parsed = OwfIssuerSigned.decode(issued.encoded);
    const items = parsed.getIssuerNamespace(NS)!;
    expect(items.map((i) => i.elementIdentifier).sort()).toEqual([
      'age_over_18',
      'birth_date',
      'family_name',
      'given_name',
      'issuing_country',
    ]);
    for (const item of items) expect(await item.isValid(NS, parsed.issuerAuth, owfCrypto)).toBe(true);
    expect(parsed.issuerAuth.mobileSecurityObject.docType).toBe(DOCTYPE);
    const response = OwfDeviceResponse.decode(
      createDeviceResponse({
        issuerSigned: issued.issuerSigned,
        disclose: { [NS]: ['given_name'] },
        deviceKey: { privateKey: device.privateKey },
        sessionTranscript: transcript,
      }),
    );
    expect(response.documents?.[0].docType).toBe(DOCTYPE);
    expect(response.documents?.[0].issuerSigned.getIssuerNamespace(NS)?.map((i) => i.elementIdentifier)).toEqual([
      'given_name',
    ]);
  });
});
