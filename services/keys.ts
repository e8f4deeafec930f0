import type { JWK, KeyObject } from 'jose';

export type SigningAlg = 'ES256' | 'RS256' | 'EdDSA';

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  privateKey: KeyObject | CryptoKey;
  publicKey: KeyObject | CryptoKey;
  publicJwk: JWK;
}

/** Named sets of signing keys (one per issuer); private keys never leave this port. */
export interface KeyRing {
  /** The current signing key of `set` for `alg`; throws if it was not provisioned. */
  signing(set: string, alg?: SigningAlg): SigningKey;
  /** A key of `set` that verifies `alg` signatures: the one named by `kid`, or (no `kid`) the oldest kept. */
  verificationKey(set: string, alg: SigningAlg, kid: string | undefined): SigningKey | undefined;
  /** The public keys of `set`, as served at its `jwks_uri`. */
  jwks(set: string): { keys: JWK[] };
  /** Private keys of a set whose keys are published on purpose (demo clients); never an issuer's. */
  publishedPrivateJwks(set: string): { keys: JWK[] };
  /** A 256-bit server secret by name (e.g. the key of user-code hashes); created with the keys, never published. */
  secret(name: string): Uint8Array;
}

/** A jose key resolver for tokens this server signed with `set`: the key their `kid` names. */
export const verifierOf = (ring: KeyRing, set: string, alg: SigningAlg) => (header: { kid?: string }) => {
  const key = ring.verificationKey(set, alg, header.kid);
  if (!key) throw new Error(`no ${alg} key "${header.kid}" in "${set}"`);
  return key.publicKey;
};
