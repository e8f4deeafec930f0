import type { JWK } from 'jose';
import { b64url } from '../bytes.ts';
import { isMap } from './cbor.ts';

/** COSE_Key labels (RFC 9052 §7, RFC 9053 §7). */
const KTY = 1,
  CRV = -1,
  X = -2,
  Y = -3;
const KTY_OKP = 1,
  KTY_EC2 = 2;
const CURVES: Record<string, number> = { 'P-256': 1, 'P-384': 2, 'P-521': 3, Ed25519: 6 };
const CURVE_NAMES = Object.fromEntries(Object.entries(CURVES).map(([k, v]) => [v, k]));

/** A public JWK as a COSE_Key map (EC2 or OKP). */
export function jwkToCoseKey(jwk: JWK): Map<number, unknown> {
  const crv = CURVES[String(jwk.crv)];
  if (jwk.kty === 'EC' && crv && jwk.x && jwk.y)
    return new Map<number, unknown>([
      [KTY, KTY_EC2],
      [CRV, crv],
      [X, Buffer.from(jwk.x, 'base64url')],
      [Y, Buffer.from(jwk.y, 'base64url')],
    ]);
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && jwk.x)
    return new Map<number, unknown>([
      [KTY, KTY_OKP],
      [CRV, crv],
      [X, Buffer.from(jwk.x, 'base64url')],
    ]);
  throw new Error(`no COSE_Key form for kty ${String(jwk.kty)} crv ${String(jwk.crv)}`);
}

/** A COSE_Key map as a public JWK. */
export function coseKeyToJwk(key: unknown): JWK {
  if (!isMap(key)) throw new Error('a COSE_Key is a map');
  const kty = key.get(KTY);
  const crv = CURVE_NAMES[Number(key.get(CRV))];
  const x = key.get(X);
  const y = key.get(Y);
  if (kty === KTY_EC2 && crv && x instanceof Uint8Array && y instanceof Uint8Array)
    return { kty: 'EC', crv, x: b64url(x), y: b64url(y) };
  if (kty === KTY_OKP && crv === 'Ed25519' && x instanceof Uint8Array) return { kty: 'OKP', crv, x: b64url(x) };
  throw new Error('unsupported COSE_Key (EC2 P-256/384/521 or OKP Ed25519 expected)');
}
