import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';

/**
 * The certificates of a variable holding PEM text or the path of a PEM file; every certificate must
 * parse. `fail` reports what is wrong with the value (the caller names the variable).
 */
export function pemCertificatesOf(value: string | undefined, fail: (reason: string) => never): string[] {
  if (value === undefined || value === '') return [];
  let text = value;
  if (!value.includes('-----BEGIN')) {
    if (!existsSync(value)) fail(`is neither PEM text nor the path of a readable file ("${value}")`);
    text = readFileSync(value, 'utf8');
  }
  const pems = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (pems.length === 0) fail('holds no PEM CERTIFICATE block');
  for (const pem of pems) {
    try {
      new X509Certificate(pem);
    } catch {
      fail('holds a certificate that does not parse');
    }
  }
  return pems;
}
