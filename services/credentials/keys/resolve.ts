import type { JWK } from 'jose';
import { DidResolutionError, type DidDocument } from './did-document.ts';
import { resolveDidJwk } from './did-jwk.ts';
import { resolveDidKey } from './did-key.ts';
import { acceptDidWebDocument } from './did-web.ts';
import { multikeyToJwk } from './multikey.ts';

/**
 * Offline DID resolution: did:key and did:jwk resolve from the identifier itself; did:web only
 * from a document the caller already fetched (`webDocuments`), since this layer does no I/O.
 */
export function resolveDid(did: string, options: { webDocuments?: Record<string, unknown> } = {}): DidDocument {
  if (typeof did !== 'string' || !did.startsWith('did:'))
    throw new DidResolutionError(String(did), 'a DID starts with "did:"');
  const method = did.split(':')[1];
  const bare = did.split('#')[0];
  if (method === 'key') return resolveDidKey(did);
  if (method === 'jwk') return resolveDidJwk(did);
  if (method === 'web') {
    const doc = options.webDocuments?.[bare];
    if (doc === undefined)
      throw new DidResolutionError(
        did,
        'did:web needs the fetched DID document (no network access in the codec layer)',
      );
    return acceptDidWebDocument(bare, doc);
  }
  throw new DidResolutionError(did, `unsupported DID method ${JSON.stringify(method)}`);
}

/**
 * The public JWK of a verification method given as a DID URL (`did:...#frag`) or a bare DID with
 * exactly one verification method.
 */
export function resolveVerificationKey(didUrl: string, options: { webDocuments?: Record<string, unknown> } = {}): JWK {
  const doc = resolveDid(didUrl, options);
  const methods = doc.verificationMethod;
  const method = didUrl.includes('#')
    ? methods.find((m) => m.id === didUrl || (m.id.startsWith('#') && `${doc.id}${m.id}` === didUrl))
    : methods.length === 1
      ? methods[0]
      : undefined;
  if (!method)
    throw new DidResolutionError(
      didUrl,
      didUrl.includes('#')
        ? 'no verification method with that id'
        : 'the DID has several keys: name one with a fragment',
    );
  if (method.publicKeyJwk) return method.publicKeyJwk;
  if (method.publicKeyMultibase) return multikeyToJwk(method.publicKeyMultibase);
  throw new DidResolutionError(didUrl, 'the verification method has neither publicKeyJwk nor publicKeyMultibase');
}
