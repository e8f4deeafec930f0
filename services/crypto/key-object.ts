import { KeyObject } from 'node:crypto';

/** KeyObjects of the CryptoKeys seen, so a key used again and again is converted once. */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

/** node:crypto's form of a key given as a WebCrypto CryptoKey or already as a KeyObject. */
export function asKeyObject(key: KeyObject | CryptoKey): KeyObject {
  if (key instanceof KeyObject) return key;
  let found = keyObjects.get(key);
  if (!found) keyObjects.set(key, (found = KeyObject.from(key)));
  return found;
}
