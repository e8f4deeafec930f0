import { KeyObject, X509Certificate, sign, verify } from 'node:crypto';
import type { JWK } from 'jose';
import { asKeyObject, publicKeyOfCertificate, publicKeyOfJwk } from '../../crypto/key-object.ts';
import { Tag, decodeCbor, encodeCbor, isMap } from './cbor.ts';

/** COSE header labels and algorithms used here (RFC 9052 §3.1, RFC 9360 for x5chain). */
export const HEADER_ALG = 1;
export const HEADER_KID = 4;
export const HEADER_X5CHAIN = 33;
export const COSE_ALGS = { ES256: -7, ES384: -35, EdDSA: -8 } as const;
export type CoseAlg = keyof typeof COSE_ALGS;
const HASH: Record<number, string | null> = { [-7]: 'sha256', [-35]: 'sha384', [-8]: null };

/** `COSE_Sign1 = [protected: bstr, unprotected: map, payload: bstr / nil, signature: bstr]` */
export type CoseSign1 = [Uint8Array, Map<unknown, unknown>, Uint8Array | null, Uint8Array];

/** `Sig_structure = ["Signature1", body_protected, external_aad, payload]` (RFC 9052 §4.4). */
const toBeSigned = (protectedBytes: Uint8Array, payload: Uint8Array, externalAad = new Uint8Array()) =>
  encodeCbor(['Signature1', protectedBytes, externalAad, payload]);

/**
 * Signs a COSE_Sign1 with node:crypto (ECDSA signatures in the fixed-length r||s form COSE uses).
 * With `detached`, the payload is signed but carried as nil (ISO 18013-5 DeviceSignature).
 */
export function signCoseSign1(input: {
  alg: CoseAlg;
  privateKey: CryptoKey | KeyObject;
  payload: Uint8Array;
  unprotected?: Map<unknown, unknown>;
  /** The whole protected header, when it carries more than `alg` (which it must then hold). */
  protectedHeaders?: Map<unknown, unknown>;
  detached?: boolean;
}): CoseSign1 {
  const alg = COSE_ALGS[input.alg];
  const protectedBytes = encodeCbor(input.protectedHeaders ?? new Map([[HEADER_ALG, alg]]));
  const signature = sign(HASH[alg], toBeSigned(protectedBytes, input.payload), {
    key: asKeyObject(input.privateKey),
    dsaEncoding: 'ieee-p1363',
  });
  return [
    protectedBytes,
    input.unprotected ?? new Map(),
    input.detached ? null : input.payload,
    new Uint8Array(signature),
  ];
}

/** Parses the shape of a COSE_Sign1 (untagged or tag 18); throws on anything else. */
export function parseCoseSign1(value: unknown): CoseSign1 {
  const v = value instanceof Tag && value.tag === 18 ? value.value : value;
  if (!Array.isArray(v) || v.length !== 4) throw new Error('a COSE_Sign1 is an array of four');
  const [p, u, payload, signature] = v;
  if (
    !(p instanceof Uint8Array) ||
    !isMap(u) ||
    !(payload === null || payload instanceof Uint8Array) ||
    !(signature instanceof Uint8Array)
  )
    throw new Error('COSE_Sign1 members have the wrong types');
  return [p, u, payload, signature];
}

/** The `alg` of the protected header; refuses algorithms outside ES256/ES384/EdDSA. */
function coseAlgOf(sign1: CoseSign1): number {
  const header = sign1[0].length ? decodeCbor(sign1[0]) : new Map();
  const alg = isMap(header) ? header.get(HEADER_ALG) : undefined;
  if (typeof alg !== 'number' || !(alg in HASH)) throw new Error(`unsupported COSE alg ${String(alg)}`);
  return alg;
}

/** Verifies a COSE_Sign1 with a public key (JWK, KeyObject or certificate); `payload` supplies a detached payload. */
export function verifyCoseSign1(
  sign1: CoseSign1,
  key: JWK | KeyObject | X509Certificate,
  detachedPayload?: Uint8Array,
): boolean {
  const alg = coseAlgOf(sign1);
  const payload = sign1[2] ?? detachedPayload;
  if (!payload) throw new Error('COSE_Sign1 has no payload and none was supplied');
  const publicKey =
    key instanceof KeyObject
      ? key
      : key instanceof X509Certificate
        ? publicKeyOfCertificate(key)
        : publicKeyOfJwk(key as Record<string, unknown>);
  return verify(HASH[alg], toBeSigned(sign1[0], payload), { key: publicKey, dsaEncoding: 'ieee-p1363' }, sign1[3]);
}
