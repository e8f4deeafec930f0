// @peculiar/x509 resolves its ASN.1 schemas through tsyringe, which needs the Reflect metadata
// polyfill loaded first. Only certificate generation lives here, so verifiers never load it.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { generateKeyPair } from 'jose';
import type { CertifiedKey } from '../mdoc/pki-generate.ts';

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const crypto: Crypto = globalThis.crypto;
const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

/** Subject alternative names of a signing certificate (e.g. the verifier host for `x509_san_dns`). */
export type AltName = { type: 'dns' | 'ip' | 'url'; value: string };

/** A P-256 signing certificate issued by `ca` (keyUsage digitalSignature, critical): for attesters, request-object signers and the like. */
export async function createSigningCertificate(input: {
  ca: CertifiedKey;
  name: string;
  notBefore: Date;
  notAfter: Date;
  altNames?: AltName[];
}): Promise<CertifiedKey> {
  const keys = (await generateKeyPair('ES256', { extractable: true })) as CryptoKeyPair;
  const ca = new x509.X509Certificate(Buffer.from(input.ca.certificate));
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: input.name,
      issuer: ca.subject,
      notBefore: input.notBefore,
      notAfter: input.notAfter,
      signingAlgorithm: ECDSA_P256,
      publicKey: keys.publicKey,
      signingKey: input.ca.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        await x509.AuthorityKeyIdentifierExtension.create(input.ca.publicKey, false, crypto),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        ...(input.altNames?.length ? [new x509.SubjectAlternativeNameExtension(input.altNames, false)] : []),
      ],
    },
    crypto,
  );
  return {
    certificate: new Uint8Array(cert.rawData),
    pem: cert.toString('pem'),
    privateKey: keys.privateKey,
    publicKey: keys.publicKey,
  };
}
