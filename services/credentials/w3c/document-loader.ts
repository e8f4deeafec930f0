import dataIntegrityContext from '@digitalbazaar/data-integrity-context';
import credentialsContext from 'credentials-context';
import type { DocumentLoader } from 'jsonld';
import vcV2 from './contexts/credentials-v2.json' with { type: 'json' };

export const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
export const DATA_INTEGRITY_V2_CONTEXT = 'https://w3id.org/security/data-integrity/v2';

/** Every context this layer can serve, by URL; all of them ship with the code. */
const BUNDLED = new Map<string, unknown>([
  ...credentialsContext.contexts,
  ...dataIntegrityContext.contexts,
  [VC_V2_CONTEXT, vcV2],
]);

export class UnknownContextError extends Error {
  constructor(readonly url: string) {
    super(`JSON-LD context ${url} is not bundled; contexts are never fetched`);
    this.name = 'UnknownContextError';
  }
}

/**
 * A jsonld document loader that serves only bundled contexts (plus `extra`, e.g. a test fixture
 * or an issuer's own context supplied as data). Any other URL fails: no network, ever.
 */
export function createDocumentLoader(extra: Record<string, unknown> = {}): DocumentLoader {
  return async (url: string) => {
    const document = Object.hasOwn(extra, url) ? extra[url] : BUNDLED.get(url);
    if (document === undefined) throw new UnknownContextError(url);
    return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
  };
}
