import type { JWK } from 'jose';
import { b64url } from '../bytes.ts';
import { DidResolutionError, singleKeyDocument, type DidDocument } from './did-document.ts';
import { publicJwkOf } from './holder-keys.ts';

/** `did:jwk`: base64url of the UTF-8 JSON of the public JWK (private members are dropped first). */
export const didJwkFromJwk = (jwk: JWK) => `did:jwk:${b64url(JSON.stringify(publicJwkOf(jwk)))}`;

export function didJwkToJwk(did: string): JWK {
  const m = /^did:jwk:([A-Za-z0-9_-]+)(#0)?$/.exec(did);
  if (!m)
    throw new DidResolutionError(
      did,
      'not a did:jwk with a base64url method-specific id (fragment, if any, must be #0)',
    );
  let jwk: unknown;
  try {
    jwk = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
  } catch {
    throw new DidResolutionError(did, 'the method-specific id is not base64url JSON');
  }
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk))
    throw new DidResolutionError(did, 'the decoded value is not a JSON object');
  if ('d' in jwk) throw new DidResolutionError(did, 'a did:jwk must not contain private key material');
  try {
    return publicJwkOf(jwk as JWK);
  } catch (error) {
    throw new DidResolutionError(did, (error as Error).message);
  }
}

/** The did:jwk DID document: one JsonWebKey2020 verification method `did#0`. */
export function resolveDidJwk(did: string): DidDocument {
  const bare = did.split('#')[0];
  const jwk = didJwkToJwk(bare);
  return singleKeyDocument(bare, { id: `${bare}#0`, type: 'JsonWebKey2020', controller: bare, publicKeyJwk: jwk }, [
    'https://w3id.org/security/suites/jws-2020/v1',
  ]);
}
