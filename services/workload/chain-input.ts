import { invalidRequest } from '../errors.ts';
import { pemCertificates } from './der.ts';

/** `pem`: PEM text with one or more certificates; `chain`: PEM blocks or base64 DER, leaf first. */
export function x509ChainOf(body: { pem?: string; chain?: string[] }): Uint8Array[] {
  if ((body.pem === undefined) === (body.chain === undefined))
    throw invalidRequest(
      'Send exactly one of pem (PEM text) or chain (array of PEM or base64 DER certificates, leaf first)',
    );
  let ders: Uint8Array[];
  try {
    ders = body.pem !== undefined ? pemCertificates(body.pem).certificates : body.chain!.flatMap(decodeChainEntry);
  } catch (error) {
    throw invalidRequest(`The certificates could not be read: ${(error as Error).message}`);
  }
  if (ders.length === 0)
    throw invalidRequest(body.pem !== undefined ? 'pem holds no -----BEGIN CERTIFICATE----- block' : 'chain is empty');
  return ders;
}

function decodeChainEntry(entry: string): Uint8Array[] {
  if (entry.includes('-----BEGIN')) return pemCertificates(entry).certificates;
  const b64 = entry.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) throw new Error('a chain entry is neither PEM nor base64 DER');
  return [new Uint8Array(Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64'))];
}
