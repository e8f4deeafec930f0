import { randomInt } from 'node:crypto';
import { randomBytes } from '../../crypto/random.ts';
import type { JWK } from 'jose';
import { sha256 } from '../bytes.ts';
import { Tag, dataItem, encodeCbor, tdate } from './cbor.ts';
import { jwkToCoseKey } from './cose-key.ts';
import { HEADER_X5CHAIN, signCoseSign1, type CoseAlg, type CoseSign1 } from './cose-sign1.ts';

export interface IssueMdocInput {
  docType: string;
  /** Element values per namespace. Dates must already be CBOR tags (`fullDate`, `tdate`). */
  namespaces: Record<string, Record<string, unknown>>;
  /** The holder's device key (public), bound in `deviceKeyInfo`. */
  deviceKey: JWK;
  /** The document signer: its private key and certificate chain (DER, leaf first) for `x5chain`. */
  signer: { privateKey: CryptoKey; x5chain: Uint8Array[]; alg?: CoseAlg };
  /** Seconds since the epoch. */
  signed: number;
  validFrom: number;
  validUntil: number;
  expectedUpdate?: number;
  /** A Token Status List reference, written as the MSO's `status` (draft-ietf-oauth-status-list §6.3). */
  status?: { idx: number; uri: string };
  /** Per-item salt length in bytes (ISO 18013-5 §9.1.2.5 requires at least 16). */
  saltLength?: number;
  /** Namespaces the holder may sign elements of with the device key (ISO 18013-5 §9.1.2.4 KeyAuthorizations). */
  deviceSignedNamespaces?: string[];
}

/** `IssuerSigned = { nameSpaces: IssuerNameSpaces, issuerAuth: IssuerAuth }` as CBOR-ready values. */
export interface IssuerSigned {
  nameSpaces: Map<string, Tag[]>;
  issuerAuth: CoseSign1;
}

/** Random, non-sequential digest IDs 0..n-1 (sequential IDs would reveal issuance order). */
function shuffledIds(n: number): number[] {
  const ids = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids;
}

/**
 * Issues an mdoc (ISO/IEC 18013-5 §9.1.2): each element becomes an IssuerSignedItem
 * (digestID, random salt, elementIdentifier, elementValue) wrapped as tag 24; the MSO lists the
 * SHA-256 of each wrapped item, the device key and validity; IssuerAuth is a COSE_Sign1 over the
 * tag-24 MSO with the document signer chain in `x5chain` (label 33).
 */
export function issueMdoc(input: IssueMdocInput): { issuerSigned: IssuerSigned; encoded: Uint8Array } {
  const nameSpaces = new Map<string, Tag[]>();
  const valueDigests = new Map<string, Map<number, Uint8Array>>();
  for (const [namespace, elements] of Object.entries(input.namespaces)) {
    const entries = Object.entries(elements);
    const ids = shuffledIds(entries.length);
    const items: Tag[] = [];
    const digests = new Map<number, Uint8Array>();
    entries.forEach(([identifier, value], i) => {
      const item = dataItem(
        new Map<string, unknown>([
          ['digestID', ids[i]],
          ['random', randomBytes(input.saltLength ?? 32)],
          ['elementIdentifier', identifier],
          ['elementValue', value],
        ]),
      );
      items.push(item);
      digests.set(ids[i], sha256(encodeCbor(item)));
    });
    nameSpaces.set(namespace, items);
    valueDigests.set(namespace, digests);
  }
  const mso = new Map<string, unknown>([
    ['version', '1.0'],
    ['digestAlgorithm', 'SHA-256'],
    ['valueDigests', valueDigests],
    [
      'deviceKeyInfo',
      new Map<string, unknown>([
        ['deviceKey', jwkToCoseKey(input.deviceKey)],
        ...(input.deviceSignedNamespaces?.length
          ? [['keyAuthorizations', new Map([['nameSpaces', input.deviceSignedNamespaces]])] as [string, unknown]]
          : []),
      ]),
    ],
    ['docType', input.docType],
    [
      'validityInfo',
      new Map<string, unknown>([
        ['signed', tdate(input.signed)],
        ['validFrom', tdate(input.validFrom)],
        ['validUntil', tdate(input.validUntil)],
        ...(input.expectedUpdate !== undefined
          ? ([['expectedUpdate', tdate(input.expectedUpdate)]] as [string, unknown][])
          : []),
      ]),
    ],
    ...(input.status
      ? ([
          [
            'status',
            new Map([
              [
                'status_list',
                new Map<string, unknown>([
                  ['idx', input.status.idx],
                  ['uri', input.status.uri],
                ]),
              ],
            ]),
          ],
        ] as [string, unknown][])
      : []),
  ]);
  const x5chain = input.signer.x5chain.length === 1 ? input.signer.x5chain[0] : input.signer.x5chain;
  const issuerAuth = signCoseSign1({
    alg: input.signer.alg ?? 'ES256',
    privateKey: input.signer.privateKey,
    payload: encodeCbor(dataItem(mso)),
    unprotected: new Map([[HEADER_X5CHAIN, x5chain]]),
  });
  const issuerSigned = { nameSpaces, issuerAuth };
  return { issuerSigned, encoded: encodeCbor(issuerSignedToCbor(issuerSigned)) };
}

const issuerSignedToCbor = (s: IssuerSigned) =>
  new Map<string, unknown>([
    ['nameSpaces', s.nameSpaces],
    ['issuerAuth', s.issuerAuth],
  ]);
