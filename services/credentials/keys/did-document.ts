import type { JWK } from 'jose';

export interface VerificationMethod {
  id: string;
  type: 'Multikey' | 'JsonWebKey2020' | 'JsonWebKey';
  controller: string;
  publicKeyMultibase?: string;
  publicKeyJwk?: JWK;
}

export interface DidDocument {
  '@context': string[];
  id: string;
  verificationMethod: VerificationMethod[];
  authentication: string[];
  assertionMethod: string[];
  capabilityInvocation?: string[];
  capabilityDelegation?: string[];
  keyAgreement?: string[];
}

/** A malformed or unresolvable DID; `reason` says which rule it broke. */
export class DidResolutionError extends Error {
  constructor(
    readonly did: string,
    readonly reason: string,
  ) {
    super(`cannot resolve ${JSON.stringify(did.slice(0, 120))}: ${reason}`);
    this.name = 'DidResolutionError';
  }
}

/** A DID document with one verification method that is referenced by every signing relationship. */
export function singleKeyDocument(did: string, method: VerificationMethod, contexts: string[]): DidDocument {
  return {
    '@context': ['https://www.w3.org/ns/did/v1', ...contexts],
    id: did,
    verificationMethod: [method],
    authentication: [method.id],
    assertionMethod: [method.id],
    capabilityInvocation: [method.id],
    capabilityDelegation: [method.id],
  };
}
