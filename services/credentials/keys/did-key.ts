import type { JWK } from 'jose';
import { DidResolutionError, singleKeyDocument, type DidDocument } from './did-document.ts';
import { jwkToMultikey, multikeyToJwk } from './multikey.ts';

/** `did:key` of a P-256 or Ed25519 public JWK (multicodec p256-pub 0x1200 compressed / ed25519-pub 0xed, base58btc). */
export const didKeyFromJwk = (jwk: JWK) => `did:key:${jwkToMultikey(jwk)}`;

const DID_KEY = /^did:key:(z[1-9A-HJ-NP-Za-km-z]+)(#.*)?$/;

/** The public JWK a did:key (or a did:key URL with fragment) names. Offline: the key is the identifier. */
export function didKeyToJwk(did: string): JWK {
  const m = DID_KEY.exec(did);
  if (!m) throw new DidResolutionError(did, 'not a did:key with a base58btc multibase ("z...") method-specific id');
  if (m[2] !== undefined && m[2] !== `#${m[1]}`)
    throw new DidResolutionError(did, 'the fragment of a did:key URL must repeat the multikey');
  try {
    return multikeyToJwk(m[1]);
  } catch (error) {
    throw new DidResolutionError(did, (error as Error).message);
  }
}

/** The did:key DID document: one Multikey verification method `did#multikey`. */
export function resolveDidKey(did: string): DidDocument {
  const bare = did.split('#')[0];
  const jwk = didKeyToJwk(bare);
  const multikey = bare.slice('did:key:'.length);
  return singleKeyDocument(
    bare,
    { id: `${bare}#${multikey}`, type: 'Multikey', controller: bare, publicKeyMultibase: jwkToMultikey(jwk) },
    ['https://w3id.org/security/multikey/v1'],
  );
}
