import { Tag, dataItem, dataItemBytes, decodeCbor, encodeCbor, isMap, mapGet } from './cbor.ts';
import { signCoseSign1, type CoseAlg } from './cose-sign1.ts';
import type { IssuerSigned } from './issuer-signed.ts';

/** `DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication", SessionTranscript, DocType, DeviceNameSpacesBytes])` (ISO 18013-5 §9.1.3.4). */
export function deviceAuthenticationBytes(
  sessionTranscript: unknown,
  docType: string,
  deviceNameSpacesBytes: Tag,
): Uint8Array {
  return encodeCbor(dataItem(['DeviceAuthentication', sessionTranscript, docType, deviceNameSpacesBytes]));
}

/** The docType of an IssuerSigned, read from its MSO. */
function docTypeOf(issuerSigned: IssuerSigned): string {
  const mso = decodeCbor(dataItemBytes(decodeCbor(issuerSigned.issuerAuth[2] as Uint8Array)));
  return String(mapGet(mso, 'docType'));
}

/** Which elements to release: per namespace, a list of element identifiers, or `'all'`. */
type Disclose = Record<string, string[]> | 'all';

/** Keeps the released IssuerSignedItems (their tag-24 bytes untouched, so digests still match). */
function selectItems(issuerSigned: IssuerSigned, disclose: Disclose): Map<string, Tag[]> {
  if (disclose === 'all') return issuerSigned.nameSpaces;
  const out = new Map<string, Tag[]>();
  for (const [ns, wanted] of Object.entries(disclose)) {
    const items = (issuerSigned.nameSpaces.get(ns) ?? []).filter((item) =>
      wanted.includes(String(mapGet(decodeCbor(dataItemBytes(item)), 'elementIdentifier'))),
    );
    if (items.length) out.set(ns, items);
  }
  return out;
}

export interface DeviceResponseInput {
  issuerSigned: IssuerSigned;
  disclose: Disclose;
  /** The device private key bound in the MSO (the same key as at issuance; OpenID4VP wallet behaviour 3). */
  deviceKey: { privateKey: CryptoKey; alg?: CoseAlg };
  sessionTranscript: unknown;
  /** Device-signed data elements per namespace (ISO 18013-5 §8.3.2.1.2.2), e.g. transaction hashes. */
  deviceNameSpaces?: Record<string, Record<string, unknown>>;
}

/**
 * A DeviceResponse (ISO 18013-5 §8.3.2.1.2.2) with one document: the selected issuer-signed
 * items, empty device-signed namespaces, and `deviceAuth.deviceSignature`, a COSE_Sign1 with a
 * detached payload over DeviceAuthenticationBytes for the given SessionTranscript.
 */
export function createDeviceResponse(input: DeviceResponseInput): Uint8Array {
  const docType = docTypeOf(input.issuerSigned);
  const deviceNameSpaces = dataItem(
    new Map(
      Object.entries(input.deviceNameSpaces ?? {}).map(([ns, elements]) => [ns, new Map(Object.entries(elements))]),
    ),
  );
  const deviceSignature = signCoseSign1({
    alg: input.deviceKey.alg ?? 'ES256',
    privateKey: input.deviceKey.privateKey,
    payload: deviceAuthenticationBytes(input.sessionTranscript, docType, deviceNameSpaces),
    detached: true,
  });
  const document = new Map<string, unknown>([
    ['docType', docType],
    [
      'issuerSigned',
      new Map<string, unknown>([
        ['nameSpaces', selectItems(input.issuerSigned, input.disclose)],
        ['issuerAuth', input.issuerSigned.issuerAuth],
      ]),
    ],
    [
      'deviceSigned',
      new Map<string, unknown>([
        ['nameSpaces', deviceNameSpaces],
        ['deviceAuth', new Map([['deviceSignature', deviceSignature]])],
      ]),
    ],
  ]);
  return encodeCbor(
    new Map<string, unknown>([
      ['version', '1.0'],
      ['documents', [document]],
      ['status', 0],
    ]),
  );
}

/** Reads an encoded IssuerSigned back into the structure `createDeviceResponse` takes. */
export function parseIssuerSigned(encoded: Uint8Array): IssuerSigned {
  const v = decodeCbor(encoded);
  const ns = mapGet(v, 'nameSpaces');
  const auth = mapGet(v, 'issuerAuth');
  if (!isMap(ns) || !Array.isArray(auth)) throw new Error('not an IssuerSigned (nameSpaces, issuerAuth)');
  return { nameSpaces: ns as Map<string, Tag[]>, issuerAuth: auth as IssuerSigned['issuerAuth'] };
}
