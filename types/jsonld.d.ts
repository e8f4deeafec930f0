// Minimal typing of the parts of jsonld (9.x) and rdf-canonize (5.x) that services/credentials/w3c uses.
declare module 'jsonld' {
  export interface RemoteDocument {
    contextUrl: string | null;
    documentUrl: string;
    document: unknown;
  }
  export type DocumentLoader = (url: string) => Promise<RemoteDocument>;
  export interface Options {
    documentLoader?: DocumentLoader;
    safe?: boolean;
    base?: string | null;
    format?: string;
    algorithm?: string;
    produceGeneralizedRdf?: boolean;
  }
  const jsonld: {
    toRDF(input: unknown, options?: Options): Promise<unknown>;
    canonize(input: unknown, options?: Options): Promise<string>;
    expand(input: unknown, options?: Options): Promise<unknown[]>;
    compact(input: unknown, context: unknown, options?: Options): Promise<Record<string, unknown>>;
  };
  export default jsonld;
}

declare module 'rdf-canonize' {
  export function canonize(
    input: unknown,
    options: {
      algorithm: 'RDFC-1.0';
      format?: 'application/n-quads';
      inputFormat?: 'application/n-quads';
      maxWorkFactor?: number;
      messageDigestAlgorithm?: string;
    },
  ): Promise<string>;
  const rdfCanonize: { canonize: typeof canonize };
  export default rdfCanonize;
}

declare module 'credentials-context' {
  export const contexts: Map<string, unknown>;
  export const CREDENTIALS_CONTEXT_V1_URL: string;
  const mod: { contexts: Map<string, unknown>; CREDENTIALS_CONTEXT_V1_URL: string };
  export default mod;
}

declare module '@digitalbazaar/data-integrity-context' {
  export const contexts: Map<string, unknown>;
  export const DATA_INTEGRITY_CONTEXT_V1_URL: string;
  export const DATA_INTEGRITY_CONTEXT_V2_URL: string;
  const mod: {
    contexts: Map<string, unknown>;
    DATA_INTEGRITY_CONTEXT_V1_URL: string;
    DATA_INTEGRITY_CONTEXT_V2_URL: string;
  };
  export default mod;
}
