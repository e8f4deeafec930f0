import jsonld, { type DocumentLoader } from 'jsonld';
import rdfCanonize from 'rdf-canonize';
import { UnknownContextError } from './document-loader.ts';

/**
 * RDF Dataset Canonicalization (RDFC-1.0) of a JSON-LD document: jsonld turns it into an RDF
 * dataset (in safe mode, so a term without a definition is an error instead of being silently
 * dropped from what gets signed), rdf-canonize produces the canonical N-Quads.
 */
export async function canonizeJsonLd(document: unknown, documentLoader: DocumentLoader): Promise<string> {
  let dataset: unknown;
  try {
    dataset = await jsonld.toRDF(document, { documentLoader, safe: true });
  } catch (error) {
    // jsonld wraps loader failures; surface ours (an unbundled context) as itself.
    const cause = (error as { details?: { cause?: unknown } }).details?.cause;
    throw cause instanceof UnknownContextError ? cause : error;
  }
  return rdfCanonize.canonize(dataset, { algorithm: 'RDFC-1.0' });
}
