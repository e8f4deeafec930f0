import type { JWK } from 'jose';
import { DidResolutionError, singleKeyDocument, type DidDocument } from './did-document.ts';
import { jwkThumbprint, publicJwkOf } from './holder-keys.ts';

/**
 * `did:web` from a host (optionally with port) and path: `example.com:8443/users/alice` ->
 * `did:web:example.com%3A8443:users:alice`. Resolution needs an HTTPS fetch, which this layer
 * never does; it builds the document a host would publish and the URL a resolver would fetch.
 */
export function didWebFromDomain(domain: string, path: string[] = []): string {
  const host = domain.trim().toLowerCase();
  if (!/^[a-z0-9.-]+(:\d{1,5})?$/.test(host) || host.startsWith('.') || host.includes('..'))
    throw new DidResolutionError(`did:web:${domain}`, 'the domain must be a host name, optionally with a port');
  for (const segment of path)
    if (!/^[A-Za-z0-9._~-]+$/.test(segment))
      throw new DidResolutionError(`did:web:${domain}`, `path segment ${JSON.stringify(segment)} is not URL-safe`);
  return ['did:web', host.replace(':', '%3A'), ...path].join(':');
}

/** The HTTPS URL of a did:web DID document (did:web spec §3.2 "Read"). */
export function didWebDocumentUrl(did: string): string {
  const m = /^did:web:([a-z0-9.-]+(?:%3A\d{1,5})?)((?::[A-Za-z0-9._~-]+)*)$/i.exec(did);
  if (!m) throw new DidResolutionError(did, 'not a did:web (did:web:<host>[%3A<port>][:<path>...])');
  const host = m[1].replace(/%3A/i, ':');
  const path = m[2] ? m[2].slice(1).split(':') : [];
  return path.length ? `https://${host}/${path.join('/')}/did.json` : `https://${host}/.well-known/did.json`;
}

/** The DID document a host publishes for `did` with one JWK verification method (`kid` = RFC 7638 thumbprint). */
export async function didWebDocument(jwk: JWK, domain: string, path: string[] = []): Promise<DidDocument> {
  const did = didWebFromDomain(domain, path);
  const publicJwk = publicJwkOf(jwk);
  return singleKeyDocument(
    did,
    {
      id: `${did}#${await jwkThumbprint(publicJwk)}`,
      type: 'JsonWebKey2020',
      controller: did,
      publicKeyJwk: publicJwk,
    },
    ['https://w3id.org/security/suites/jws-2020/v1'],
  );
}

/** Checks a fetched did:web document belongs to `did` (its `id` must equal the DID). */
export function acceptDidWebDocument(did: string, document: unknown): DidDocument {
  didWebDocumentUrl(did);
  const doc = document as DidDocument;
  if (!doc || typeof doc !== 'object' || doc.id !== did)
    throw new DidResolutionError(did, 'the document id does not equal the DID');
  if (!Array.isArray(doc.verificationMethod))
    throw new DidResolutionError(did, 'the document has no verificationMethod array');
  return doc;
}
