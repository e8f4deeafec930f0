import type { SdJwtParts } from './types.ts';

/**
 * Compact serialization (RFC 9901 §4): `<issuer JWT>~<disclosure>~...~<disclosure>~[<KB-JWT>]`.
 * Without key binding the string ends with `~`.
 */
export function splitSdJwt(text: string): SdJwtParts {
  const parts = text.trim().split('~');
  if (parts.length < 2) throw new Error('an SD-JWT has at least one "~"');
  const last = parts[parts.length - 1];
  const disclosures = parts.slice(1, -1);
  if (disclosures.some((d) => d === '')) throw new Error('empty disclosure between "~" separators');
  return { issuerJwt: parts[0], disclosures, ...(last ? { kbJwt: last } : {}) };
}

/** The string the KB-JWT's `sd_hash` covers: everything up to and including the last `~`. */
export const sdJwtWithoutKb = (issuerJwt: string, disclosures: string[]) => `${[issuerJwt, ...disclosures].join('~')}~`;
