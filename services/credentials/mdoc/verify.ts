import { createHash, type X509Certificate } from 'node:crypto';
import type { JWK } from 'jose';
import { isPrototypeName, nullRecord } from '../../untrusted/keys.ts';
import { CheckFailed, runChecks, type Result, type CheckTrail } from '../result.ts';
import { Tag, dataItemBytes, decodeCbor, encodeCbor, isMap, mapGet, tdateSeconds } from './cbor.ts';
import { coseKeyToJwk } from './cose-key.ts';
import { HEADER_X5CHAIN, parseCoseSign1, verifyCoseSign1, type CoseSign1 } from './cose-sign1.ts';
import { deviceAuthenticationBytes } from './device-response.ts';
import { deviceSignedElements, keyAuthorizationsOf } from './device-signed.ts';
import type { MdocCheck, VerifiedMdoc, VerifyIssuerSignedOptions } from './verified.ts';
import { validateDocumentSignerChain } from './pki.ts';

const DIGESTS: Record<string, string> = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

/** The node:crypto hash for an MSO `digestAlgorithm`, or undefined when it is not supported. */
export const msoDigestHash = (digestAlgorithm: unknown): string | undefined =>
  Object.hasOwn(DIGESTS, String(digestAlgorithm)) ? DIGESTS[String(digestAlgorithm)] : undefined;

/** What the MSO's valueDigests lists for an IssuerSignedItem: the hash of its encoded tag-24 wrapping (ISO 18013-5 §9.1.2.5). */
export const issuerSignedItemDigest = (hash: string, wrapped: Tag): Buffer =>
  createHash(hash).update(encodeCbor(wrapped)).digest();

const fail = (check: MdocCheck, reason: string): never => {
  throw new CheckFailed(check, reason);
};

function decodeMso(issuerAuth: CoseSign1): Map<unknown, unknown> {
  try {
    const mso = decodeCbor(dataItemBytes(decodeCbor(issuerAuth[2] as Uint8Array)));
    if (isMap(mso)) return mso;
  } catch {
    /* fall through */
  }
  return fail('format', 'the IssuerAuth payload is not a tag-24 MobileSecurityObject');
}

function x5chainOf(trail: CheckTrail, issuerAuth: CoseSign1): Uint8Array[] {
  const raw =
    issuerAuth[1].get(HEADER_X5CHAIN) ??
    mapGet(issuerAuth[0].length ? decodeCbor(issuerAuth[0]) : undefined, HEADER_X5CHAIN);
  const list = raw instanceof Uint8Array ? [raw] : Array.isArray(raw) ? raw : [];
  trail.ensure(
    list.length > 0 && list.every((c) => c instanceof Uint8Array),
    'chain',
    'IssuerAuth carries no x5chain (label 33)',
  );
  return list;
}

/** IssuerSigned checks shared by the wallet (before storing, behaviour 10) and the verifier. */
async function checkIssuerSigned(
  trail: CheckTrail,
  issuerSigned: unknown,
  options: VerifyIssuerSignedOptions,
  documentDocType?: string,
): Promise<VerifiedMdoc> {
  trail.ensure(isMap(issuerSigned), 'format', 'IssuerSigned must be a map');
  let issuerAuth: CoseSign1;
  try {
    issuerAuth = parseCoseSign1(issuerSigned.get('issuerAuth'));
  } catch (error) {
    return fail('format', `issuerAuth: ${(error as Error).message}`);
  }
  trail.ensure(issuerAuth[2] !== null, 'format', 'issuerAuth has no payload');
  const mso = decodeMso(issuerAuth);
  const docType = mso.get('docType');
  const valueDigests = mso.get('valueDigests');
  const validityInfo = mso.get('validityInfo');
  const deviceKeyInfo = mso.get('deviceKeyInfo');
  trail.ensure(mso.get('version') === '1.0', 'format', 'MSO version must be "1.0"');
  trail.ensure(
    typeof docType === 'string' && isMap(valueDigests) && isMap(validityInfo) && isMap(deviceKeyInfo),
    'format',
    'the MSO lacks docType, valueDigests, validityInfo or deviceKeyInfo',
  );

  // chain, then the IssuerAuth signature with the document signer's key
  const { leaf } = await validateDocumentSignerChain(
    x5chainOf(trail, issuerAuth),
    options.trustedRoots,
    options.now,
    trail,
  );
  let signatureOk = false;
  try {
    signatureOk = verifyCoseSign1(issuerAuth, leaf as X509Certificate);
  } catch (error) {
    fail('signature', (error as Error).message);
  }
  trail.ensure(
    signatureOk,
    'signature',
    'the IssuerAuth signature does not verify with the document signer certificate',
  );

  trail.ensure(
    documentDocType === undefined || documentDocType === docType,
    'doctype',
    `the document docType ${documentDocType} differs from the MSO docType ${docType}`,
  );
  trail.ensure(
    options.expectedDocType === undefined || options.expectedDocType === docType,
    'doctype',
    `docType ${docType} is not the expected ${options.expectedDocType}`,
  );

  // digests of every released item
  const hash = msoDigestHash(mso.get('digestAlgorithm'));
  trail.ensure(hash, 'digest', `unsupported digestAlgorithm ${String(mso.get('digestAlgorithm'))}`);
  const nameSpaces = issuerSigned.get('nameSpaces') ?? new Map();
  trail.ensure(isMap(nameSpaces), 'format', 'nameSpaces must be a map');
  const claims: VerifiedMdoc['claims'] = nullRecord();
  for (const [ns, items] of nameSpaces) {
    trail.ensure(
      typeof ns === 'string' && Array.isArray(items),
      'format',
      'each namespace maps a name to an array of items',
    );
    trail.ensure(!isPrototypeName(ns), 'format', `a namespace must not be named ${ns}`);
    const expected = valueDigests.get(ns);
    trail.ensure(isMap(expected), 'digest', `the MSO has no digests for namespace ${ns}`);
    const seenIds = new Set<number>();
    const out = nullRecord();
    for (const wrapped of items) {
      let item: unknown;
      try {
        item = decodeCbor(dataItemBytes(wrapped));
      } catch {
        return fail('format', `an item of ${ns} is not a tag-24 IssuerSignedItem`);
      }
      const id = mapGet(item, 'digestID');
      const identifier = mapGet(item, 'elementIdentifier');
      const random = mapGet(item, 'random');
      trail.ensure(
        typeof id === 'number' &&
          typeof identifier === 'string' &&
          random instanceof Uint8Array &&
          isMap(item) &&
          item.has('elementValue'),
        'format',
        `an item of ${ns} lacks digestID, random, elementIdentifier or elementValue`,
      );
      trail.ensure(!isPrototypeName(identifier), 'format', `an element must not be named ${identifier}`);
      trail.ensure(
        !seenIds.has(id) && !Object.hasOwn(out, identifier),
        'digest',
        `${ns}/${identifier}: digestID or element released twice`,
      );
      seenIds.add(id);
      const digest: unknown = expected.get(id);
      trail.ensure(digest instanceof Uint8Array, 'digest', `${ns}/${identifier}: digestID ${id} is not in the MSO`);
      const actual = issuerSignedItemDigest(hash, wrapped as Tag);
      trail.ensure(
        actual.equals(Buffer.from(digest)),
        'digest',
        `${ns}/${identifier}: the item does not match its MSO digest`,
      );
      out[identifier] = item.get('elementValue');
    }
    claims[ns] = out;
  }

  // validity of the MSO at `now`, and signed within the signer certificate's validity
  let signed: number, validFrom: number, validUntil: number;
  try {
    signed = tdateSeconds(validityInfo.get('signed'));
    validFrom = tdateSeconds(validityInfo.get('validFrom'));
    validUntil = tdateSeconds(validityInfo.get('validUntil'));
  } catch (error) {
    return fail('format', `validityInfo: ${(error as Error).message}`);
  }
  trail.ensure(
    validFrom >= signed && validUntil > validFrom,
    'validity',
    'validityInfo is inconsistent (signed <= validFrom < validUntil)',
  );
  trail.ensure(
    signed * 1000 >= Date.parse(leaf.validFrom) && signed * 1000 <= Date.parse(leaf.validTo),
    'validity',
    'the MSO was signed outside the document signer certificate validity',
  );
  trail.ensure(options.now >= validFrom, 'validity', 'the mdoc is not yet valid (validFrom)');
  trail.ensure(options.now < validUntil, 'validity', 'the mdoc has expired (validUntil)');

  let deviceKey: JWK;
  try {
    deviceKey = coseKeyToJwk(deviceKeyInfo.get('deviceKey'));
  } catch (error) {
    return fail('format', `deviceKey: ${(error as Error).message}`);
  }
  return {
    docType,
    claims,
    deviceKey,
    keyAuthorizations: keyAuthorizationsOf(deviceKeyInfo.get('keyAuthorizations')),
    validity: { signed, validFrom, validUntil },
    ...(mso.has('status') ? { status: mso.get('status') } : {}),
    signer: { subject: leaf.subject.replace(/\n/g, ', '), issuer: leaf.issuer.replace(/\n/g, ', ') },
  };
}

/** Verifies an IssuerSigned (encoded bytes or decoded map): chain to a trusted IACA, signature, digests, docType, validity. */
export function verifyIssuerSigned(
  issuerSigned: Uint8Array | Map<unknown, unknown>,
  options: VerifyIssuerSignedOptions,
): Promise<Result<VerifiedMdoc, MdocCheck>> {
  return runChecks<VerifiedMdoc, MdocCheck>(options.trail, async (trail: CheckTrail) => {
    let value: unknown = issuerSigned;
    if (issuerSigned instanceof Uint8Array) {
      try {
        value = decodeCbor(issuerSigned);
      } catch {
        fail('format', 'not CBOR');
      }
    }
    return checkIssuerSigned(trail, value, options);
  });
}

export interface VerifyDeviceResponseOptions extends VerifyIssuerSignedOptions {
  /** The SessionTranscript the verifier expects (e.g. `oid4vpSessionTranscript(...)`). */
  sessionTranscript: unknown;
}

/** Verifies a DeviceResponse: every document's IssuerSigned, then its DeviceSignature over this SessionTranscript with the MSO device key. */
export function verifyDeviceResponse(
  encoded: Uint8Array,
  options: VerifyDeviceResponseOptions,
): Promise<Result<{ documents: VerifiedMdoc[] }, MdocCheck>> {
  return runChecks<{ documents: VerifiedMdoc[] }, MdocCheck>(options.trail, async (trail: CheckTrail) => {
    let response: unknown;
    try {
      response = decodeCbor(encoded);
    } catch {
      fail('format', 'not CBOR');
    }
    trail.ensure(isMap(response), 'format', 'a DeviceResponse is a map');
    trail.ensure(response.get('version') === '1.0', 'format', 'DeviceResponse version must be "1.0"');
    trail.ensure(
      response.get('status') === 0,
      'format',
      `DeviceResponse status is ${String(response.get('status'))}, not 0 (OK)`,
    );
    const documents = response.get('documents');
    trail.ensure(Array.isArray(documents) && documents.length > 0, 'format', 'the DeviceResponse has no documents');
    return {
      documents: await mapInOrder(documents, async (doc) => {
        trail.ensure(isMap(doc) && typeof doc.get('docType') === 'string', 'format', 'a document needs a docType');
        const docType = doc.get('docType') as string;
        const verified = await checkIssuerSigned(trail, doc.get('issuerSigned'), options, docType);
        const deviceSigned = doc.get('deviceSigned');
        trail.ensure(isMap(deviceSigned), 'device_authentication', 'the document has no deviceSigned');
        const nameSpacesBytes = deviceSigned.get('nameSpaces');
        trail.ensure(
          nameSpacesBytes instanceof Tag && nameSpacesBytes.tag === 24,
          'device_authentication',
          'deviceSigned.nameSpaces must be a tag-24 data item',
        );
        const deviceAuth = deviceSigned.get('deviceAuth');
        trail.ensure(isMap(deviceAuth), 'device_authentication', 'deviceSigned has no deviceAuth');
        trail.ensure(
          !deviceAuth.has('deviceMac'),
          'device_authentication',
          'deviceMac is not supported (no reader key agreement in OpenID4VP); a deviceSignature is required',
        );
        let ok = false;
        try {
          const signature = parseCoseSign1(deviceAuth.get('deviceSignature'));
          trail.ensure(
            signature[2] === null,
            'device_authentication',
            'the device signature payload must be detached (nil)',
          );
          ok = verifyCoseSign1(
            signature,
            verified.deviceKey,
            deviceAuthenticationBytes(options.sessionTranscript, docType, nameSpacesBytes),
          );
        } catch (error) {
          if (error instanceof CheckFailed) throw error;
          fail('device_authentication', (error as Error).message);
        }
        trail.ensure(
          ok,
          'device_authentication',
          'the device signature does not verify over this SessionTranscript with the MSO device key',
        );
        const signedByDevice = deviceSignedElements(nameSpacesBytes, verified.keyAuthorizations, trail);
        return Object.keys(signedByDevice).length ? { ...verified, deviceSigned: signedByDevice } : verified;
      }),
    };
  });
}

/** Each item in turn (a document's checks finish before the next one's start, so the first failure is reported). */
async function mapInOrder<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) out.push(await each(item));
  return out;
}
