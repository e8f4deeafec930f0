import { ECDH, createPublicKey } from 'node:crypto';
import type { JWK } from 'jose';
import { b64url, fromB64url } from '../bytes.ts';
import { multibaseDecode, multibaseEncode } from './base58.ts';

/** Multicodec codes (unsigned varint) for the key types did:key and Multikey carry. */
const P256_PUB = 0x1200;
const ED25519_PUB = 0xed;

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

function readVarint(bytes: Uint8Array): { value: number; length: number } {
  let value = 0;
  for (let i = 0, shift = 0; i < Math.min(bytes.length, 4); i++, shift += 7) {
    value |= (bytes[i] & 0x7f) << shift;
    if ((bytes[i] & 0x80) === 0) return { value, length: i + 1 };
  }
  throw new Error('malformed multicodec varint');
}

/** DER prefix of a SubjectPublicKeyInfo for a compressed P-256 point (id-ecPublicKey, prime256v1, BIT STRING of 33 bytes). */
const P256_COMPRESSED_SPKI_PREFIX = Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex');

/** Public JWK -> multibase multikey (`z` + base58btc(varint(codec) || key bytes)); P-256 points are compressed. */
export function jwkToMultikey(jwk: JWK): string {
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string')
    return multibaseEncode(new Uint8Array([...varint(ED25519_PUB), ...fromB64url(jwk.x)]));
  if (jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.x === 'string' && typeof jwk.y === 'string') {
    const uncompressed = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(jwk.x, 'base64url'),
      Buffer.from(jwk.y, 'base64url'),
    ]);
    const compressed = ECDH.convertKey(uncompressed, 'prime256v1', undefined, undefined, 'compressed') as Buffer;
    return multibaseEncode(new Uint8Array([...varint(P256_PUB), ...compressed]));
  }
  throw new Error(`multikey supports Ed25519 and P-256 public keys, not kty ${String(jwk.kty)} crv ${String(jwk.crv)}`);
}

/** Multibase multikey -> public JWK. The P-256 point is decompressed by node:crypto (OpenSSL), never by hand. */
export function multikeyToJwk(multikey: string): JWK {
  const bytes = multibaseDecode(multikey);
  const { value: codec, length } = readVarint(bytes);
  const key = bytes.slice(length);
  if (codec === ED25519_PUB) {
    if (key.length !== 32) throw new Error(`an Ed25519 public key has 32 bytes, not ${key.length}`);
    return { kty: 'OKP', crv: 'Ed25519', x: b64url(key) };
  }
  if (codec === P256_PUB) {
    if (key.length !== 33 || (key[0] !== 2 && key[0] !== 3))
      throw new Error('a P-256 multikey must be a 33-byte compressed point');
    const jwk = createPublicKey({
      key: Buffer.concat([P256_COMPRESSED_SPKI_PREFIX, key]),
      format: 'der',
      type: 'spki',
    }).export({ format: 'jwk' });
    return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
  }
  throw new Error(`unsupported multicodec 0x${codec.toString(16)}`);
}
