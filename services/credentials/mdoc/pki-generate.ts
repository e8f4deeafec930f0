// @peculiar/x509 resolves its ASN.1 schemas through tsyringe, which needs the Reflect metadata
// polyfill loaded first. Only certificate generation lives here, so verifiers never load it.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { generateKeyPair } from 'jose';
import { MDL_DS_EKU } from './pki.ts';

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const crypto: Crypto = globalThis.crypto;

export interface CertifiedKey {
  /** DER of the certificate. */
  certificate: Uint8Array;
  pem: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
const der = (cert: x509.X509Certificate) => new Uint8Array(cert.rawData);

/**
 * An IACA root roughly per ISO/IEC 18013-5 Annex B.1.2: self-signed, P-256, basicConstraints
 * CA with pathLen 0 (critical), keyUsage keyCertSign + cRLSign (critical), subject key identifier,
 * issuer alternative name (a URL), CRL distribution point. The subject must carry a country (C).
 */
export async function createIacaRoot(input: {
  name?: string;
  notBefore: Date;
  notAfter: Date;
  issuerUrl?: string;
  crlUrl?: string;
}): Promise<CertifiedKey> {
  const keys = (await generateKeyPair('ES256', { extractable: true })) as CryptoKeyPair;
  const name = input.name ?? 'CN=Portico Test IACA, O=Portico, C=FR';
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: name,
      issuer: name,
      notBefore: input.notBefore,
      notAfter: input.notAfter,
      signingAlgorithm: ECDSA_P256,
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        new x509.IssuerAlternativeNameExtension(
          [{ type: 'url', value: input.issuerUrl ?? 'https://portico.example/iaca' }],
          false,
        ),
        new x509.CRLDistributionPointsExtension([input.crlUrl ?? 'https://portico.example/iaca.crl'], false),
      ],
    },
    crypto,
  );
  return { certificate: der(cert), pem: cert.toString('pem'), privateKey: keys.privateKey, publicKey: keys.publicKey };
}

/**
 * A document signer certificate roughly per Annex B.1.4: issued by the IACA, keyUsage
 * digitalSignature (critical), extended key usage 1.0.18013.5.1.2 (critical), authority and
 * subject key identifiers, issuer alternative name, CRL distribution point.
 */
export async function createDocumentSigner(input: {
  iaca: CertifiedKey;
  name?: string;
  notBefore: Date;
  notAfter: Date;
  issuerUrl?: string;
  crlUrl?: string;
}): Promise<CertifiedKey> {
  const keys = (await generateKeyPair('ES256', { extractable: true })) as CryptoKeyPair;
  const iaca = new x509.X509Certificate(Buffer.from(input.iaca.certificate));
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: input.name ?? 'CN=Portico Test Document Signer, O=Portico, C=FR',
      issuer: iaca.subject,
      notBefore: input.notBefore,
      notAfter: input.notAfter,
      signingAlgorithm: ECDSA_P256,
      publicKey: keys.publicKey,
      signingKey: input.iaca.privateKey,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([MDL_DS_EKU], true),
        await x509.AuthorityKeyIdentifierExtension.create(input.iaca.publicKey, false, crypto),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        new x509.IssuerAlternativeNameExtension(
          [{ type: 'url', value: input.issuerUrl ?? 'https://portico.example/iaca' }],
          false,
        ),
        new x509.CRLDistributionPointsExtension([input.crlUrl ?? 'https://portico.example/iaca.crl'], false),
      ],
    },
    crypto,
  );
  return { certificate: der(cert), pem: cert.toString('pem'), privateKey: keys.privateKey, publicKey: keys.publicKey };
}
