import { X509Certificate } from 'node:crypto';
import type { PemKeyPair } from './signature.ts';

/** The RSA keys and self-signed certificates of SAML here (created on first use, kept beside the key file). */
export interface SamlKeys {
  /** The IdP's signing key: responses, assertions, metadata, logout messages. */
  idpSigning: PemKeyPair;
  /** The IdP's encryption key (an SP may encrypt to it; published in its metadata). */
  idpEncryption: PemKeyPair;
  /** Our SP's signing key (AuthnRequests, logout messages). */
  spSigning: PemKeyPair;
  /** Our SP's encryption key: assertions our IdP sends it are encrypted to it. */
  spEncryption: PemKeyPair;
  /** The demo SPs' key, published on purpose (demo data) so that any SP library can play a demo SP. */
  demoSp: PemKeyPair;
}

export const SAML_KEY_NAMES = ['idpSigning', 'idpEncryption', 'spSigning', 'spEncryption', 'demoSp'] as const;

/** The base64 DER of a PEM certificate, as `ds:X509Certificate` carries it. */
export const certificateBody = (pem: string): string =>
  pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

/** A certificate from the base64 DER of `ds:X509Certificate`, or undefined when it is not one. */
export function certificateFromBase64(body: string): X509Certificate | undefined {
  try {
    return new X509Certificate(Buffer.from(body.replace(/\s+/g, ''), 'base64'));
  } catch {
    return undefined;
  }
}
