// @peculiar/x509 resolves its ASN.1 schemas through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { generateKeyPair as generateKeyPairCb } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { SAML_KEY_NAMES, type SamlKeys } from '../../services/saml/keys.ts';
import type { PemKeyPair } from '../../services/saml/signature.ts';

const generateKeyPair = promisify(generateKeyPairCb);
const RSA_SHA256 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
const YEAR_MS = 365 * 86_400_000;

/** An RSA-2048 key and a self-signed certificate for it (SAML metadata trusts certificates, not chains). */
async function certifiedRsaKey(subject: string, nowMs: number): Promise<PemKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const keys: CryptoKeyPair = {
    privateKey: await globalThis.crypto.subtle.importKey(
      'pkcs8',
      privateKey.export({ type: 'pkcs8', format: 'der' }),
      RSA_SHA256,
      true,
      ['sign'],
    ),
    publicKey: await globalThis.crypto.subtle.importKey(
      'spki',
      publicKey.export({ type: 'spki', format: 'der' }),
      RSA_SHA256,
      true,
      ['verify'],
    ),
  };
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(16)))
        .toString('hex')
        .replace(/^[89a-f]/, '1'),
      name: subject,
      notBefore: new Date(nowMs - 86_400_000),
      notAfter: new Date(nowMs + 10 * YEAR_MS),
      signingAlgorithm: RSA_SHA256,
      keys,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment),
      ],
    },
    globalThis.crypto,
  );
  return { privateKeyPem, certificatePem: cert.toString('pem') };
}

const SUBJECTS: Record<(typeof SAML_KEY_NAMES)[number], string> = {
  idpSigning: 'CN=Portico SAML IdP signing',
  idpEncryption: 'CN=Portico SAML IdP encryption',
  spSigning: 'CN=Portico SAML SP signing',
  spEncryption: 'CN=Portico SAML SP encryption',
  demoSp: 'CN=Portico demo SAML SP (published key)',
};

/**
 * The SAML keys kept in `file` (mode 0600), made on first use. Instances sharing the file agree: the
 * first to write it wins (a hard link never replaces an existing file) and everyone reads it back.
 */
export async function loadOrCreateSamlKeys(file: string, nowMs: number): Promise<SamlKeys> {
  if (!existsSync(file)) {
    const made = await Promise.all(
      SAML_KEY_NAMES.map(async (name) => [name, await certifiedRsaKey(SUBJECTS[name], nowMs)]),
    );
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(made), null, 2), { mode: 0o600 });
    try {
      linkSync(tmp, file);
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  return JSON.parse(readFileSync(file, 'utf8')) as SamlKeys;
}
