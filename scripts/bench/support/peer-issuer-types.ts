import type { Jwk } from '@openid4vc/oauth2';

export interface PeerIssuerOptions {
  /** AS answers 400 and the credential endpoint 401 `use_dpop_nonce` until the current nonce comes back. */
  dpopNonce?: boolean;
  /** `batch_credential_issuance.batch_size` advertised (none when absent). */
  batchSize?: number;
  /** Batch credentials in the reverse order of the proofs. */
  reverseBatch?: boolean;
  /** The issuer metadata names this `credential_issuer` instead of its own. */
  credentialIssuerOverride?: string;
  /** The authorization server metadata names this `issuer` instead of its own. */
  asIssuerOverride?: string;
  /** SD-JWT VCs signed with the key that only `/.well-known/jwt-vc-issuer` lists, not `jwks_uri`. */
  signWithJwtVcIssuerKey?: boolean;
  /** The wallet attester's public key: client attestations it signed pass at PAR and token. */
  attesterJwk?: Jwk;
}

export interface PeerIssuer {
  url: string;
  issuer: string;
  options: PeerIssuerOptions;
  hits: Map<string, number>;
  /** DPoP nonce challenges sent, by side. */
  challenges: { as: number; rs: number };
  /** Per credential request: how many proofs came and how many distinct keys they held. */
  batches: { proofs: number; distinctKeys: number }[];
  /** `x-fapi-interaction-id` and event of each notification. */
  notifications: { event: unknown; interactionId?: string; dpop: boolean }[];
  /** The query parameter names of each authorization request that reached the authorize endpoint. */
  authorizeQueries: string[][];
  /** Each read of the protected resource `{issuer}/resource`: the token's scope and whether DPoP bound it. */
  resourceReads: { scope?: string; dpop: boolean; interactionId?: string }[];
  /** An offer by value (`openid-credential-offer://…`) with a fresh pre-authorized code. */
  createOffer(configurationIds?: string[]): Promise<string>;
  close(): Promise<void>;
}
