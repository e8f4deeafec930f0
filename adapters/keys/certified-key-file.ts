import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { exportJWK, importJWK, type JWK } from 'jose';
import type { CertifiedKey } from '../../services/credentials/mdoc/index.ts';

/** A certificate and its private key as kept on disk. */
interface StoredCertifiedKey {
  pem: string;
  privateJwk: JWK;
}

async function restoreCertifiedKey(stored: StoredCertifiedKey): Promise<CertifiedKey> {
  const cert = new X509Certificate(stored.pem);
  const { d: _d, ...publicJwk } = stored.privateJwk;
  return {
    certificate: new Uint8Array(cert.raw),
    pem: stored.pem,
    // Extractable: the demo attester's private keys are published, and a restart must be able to publish them again.
    privateKey: (await importJWK({ ...stored.privateJwk, alg: 'ES256' }, 'ES256', { extractable: true })) as CryptoKey,
    publicKey: (await importJWK({ ...publicJwk, alg: 'ES256' }, 'ES256')) as CryptoKey,
  };
}

const storeCertifiedKey = async (key: CertifiedKey): Promise<StoredCertifiedKey> => ({
  pem: key.pem,
  privateJwk: await exportJWK(key.privateKey),
});

/**
 * Loads a set of certified keys kept as JSON in `file`, or makes them with `create` and keeps them
 * (mode 0600, written to a temporary file and renamed, so a crash never leaves half a file).
 */
export async function loadOrCreateCertifiedKeys<K extends string>(
  file: string,
  create: () => Promise<Record<K, CertifiedKey>>,
): Promise<Record<K, CertifiedKey>> {
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<K, StoredCertifiedKey>;
    const entries = await Promise.all(
      Object.entries<StoredCertifiedKey>(stored).map(
        async ([name, key]) => [name, await restoreCertifiedKey(key)] as const,
      ),
    );
    return Object.fromEntries(entries) as Record<K, CertifiedKey>;
  }
  const keys = await create();
  const stored = Object.fromEntries(
    await Promise.all(
      Object.entries<CertifiedKey>(keys).map(async ([name, key]) => [name, await storeCertifiedKey(key)] as const),
    ),
  );
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(stored, null, 2), { mode: 0o600 });
  renameSync(tmp, file);
  return keys;
}
