import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { importJWK, type JWK } from 'jose';
import { jwkThumbprint, publicJwkOf, type KeyPair } from '../../services/credentials/keys/index.ts';
import type { DeviceKey } from '../../services/wallet/device-key.ts';
import { WalletConfigError } from './config.ts';

async function toKeyPair(privateKey: KeyObject): Promise<KeyPair> {
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  const publicJwk = publicJwkOf(jwk);
  return {
    alg: 'ES256',
    // Extractable: COSE signs with node:crypto, which Node 24 will not take from a non-extractable key (DEP0204).
    privateKey: (await importJWK({ ...jwk, alg: 'ES256' }, 'ES256', { extractable: true })) as CryptoKey,
    publicKey: (await importJWK({ ...publicJwk, alg: 'ES256' }, 'ES256')) as CryptoKey,
    publicJwk,
    kid: await jwkThumbprint(publicJwk),
  };
}

const newP256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

/**
 * The mdoc device key (decisions section 10): PKCS#8 P-256 PEM at `WALLET_DEVICE_KEY_PATH`, created
 * there when absent (written to a temporary file with mode 0600, then renamed, so a crash never
 * leaves half a key); unset, one ephemeral key for the life of the process.
 */
export async function loadDeviceKey(path: string | undefined): Promise<DeviceKey> {
  if (!path) return { pair: await toKeyPair(newP256()), persistent: false };
  if (existsSync(path)) {
    let key: KeyObject;
    try {
      key = createPrivateKey(readFileSync(path, 'utf8'));
    } catch {
      throw new WalletConfigError('WALLET_DEVICE_KEY_PATH', `${path} is not a PKCS#8 private key`);
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
      throw new WalletConfigError('WALLET_DEVICE_KEY_PATH', `${path} is not an EC P-256 key`);
    return { pair: await toKeyPair(key), persistent: true };
  }
  const key = newP256();
  try {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, key.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (error) {
    throw new WalletConfigError(
      'WALLET_DEVICE_KEY_PATH',
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  return { pair: await toKeyPair(key), persistent: true };
}
