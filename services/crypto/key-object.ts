import { KeyObject, type X509Certificate, createPublicKey } from 'node:crypto';
import { BoundedCache } from '../bounded-cache.ts';

/** KeyObjects of the CryptoKeys seen, so a key used again and again is converted once. */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

/** node:crypto's form of a key given as a WebCrypto CryptoKey or already as a KeyObject. */
export function asKeyObject(key: KeyObject | CryptoKey): KeyObject {
  if (key instanceof KeyObject) return key;
  let found = keyObjects.get(key);
  if (!found) keyObjects.set(key, (found = KeyObject.from(key)));
  return found;
}

/** Public keys imported from JWKs, by their public members (bounded): verifiers see the same keys again and again. */
const importedKeys = new BoundedCache<string, KeyObject>(1024);

/** node:crypto's public key of an EC, OKP or RSA JWK (its public members only), imported once. */
export function publicKeyOfJwk(jwk: Record<string, unknown>): KeyObject {
  const { kty, crv, x, y, n, e } = jwk;
  const id = JSON.stringify([kty, crv, x, y, n, e]);
  let key = importedKeys.get(id);
  if (!key) {
    key = createPublicKey({ key: { kty, crv, x, y, n, e } as never, format: 'jwk' });
    importedKeys.set(id, key);
  }
  return key;
}

/** A certificate's public key; node builds a new KeyObject on every read of `publicKey`. */
const certificateKeys = new WeakMap<X509Certificate, KeyObject>();
export function publicKeyOfCertificate(certificate: X509Certificate): KeyObject {
  let key = certificateKeys.get(certificate);
  if (!key) certificateKeys.set(certificate, (key = certificate.publicKey));
  return key;
}
