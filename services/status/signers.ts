/**
 * Which key signs a status list: the key that signs the credentials pointing at it (issue: a verifier
 * that trusts a credential verifies its list with the same trust, as `@sd-jwt/sd-jwt-vc` does by
 * default). Lists are kept apart per signer:
 * - `document-signer`: mdocs and HAIP SD-JWT VCs, signed by the document signer with its certificate
 *   (`x5chain` / `x5c` to the IACA); their lists carry the same certificate;
 * - `issuer-key:<kid>`: every other credential, signed by the issuer's key named by `kid` in its
 *   `jwks_uri` (and, for W3C credentials, the did:jwk of that key); a rotation opens new lists.
 * A list opened before signers were recorded has none, and is signed by the issuer's current key.
 */
export type ListSigner = 'document-signer' | `issuer-key:${string}`;

export const DOCUMENT_SIGNER: ListSigner = 'document-signer';

/** The signer of a configuration's credentials, given the issuer key's current `kid`. */
export function listSignerFor(configuration: { format: string; haip?: unknown }, currentIssuerKid: string): ListSigner {
  return configuration.format === 'mso_mdoc' || configuration.haip ? DOCUMENT_SIGNER : `issuer-key:${currentIssuerKid}`;
}

/** The `kid` of an issuer-key signer, or undefined for the document signer (or a list without a signer). */
export function issuerKidOf(signer: string | undefined): string | undefined {
  return signer?.startsWith('issuer-key:') ? signer.slice('issuer-key:'.length) : undefined;
}
