import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DidResolutionError,
  base58btcDecode,
  base58btcEncode,
  didJwkFromJwk,
  didJwkToJwk,
  didKeyFromJwk,
  didKeyToJwk,
  didWebDocument,
  didWebDocumentUrl,
  didWebFromDomain,
  generateHolderKey,
  jwkThumbprint,
  jwkThumbprintBytes,
  resolveDid,
  resolveVerificationKey,
} from '../../../services/credentials/keys/index.ts';

describe('holder keys', () => {
  it.each(['ES256', 'EdDSA', 'RS256'] as const)(
    '%s: generates a key pair whose kid is its RFC 7638 thumbprint',
    async (alg) => {
      const k = await generateHolderKey(alg);
      expect(k.kid).toBe(await jwkThumbprint(k.publicJwk));
      expect(k.publicJwk).not.toHaveProperty('d');
      // Extractable by default: node:crypto signs with it, and Node 24 deprecates converting a
      // non-extractable CryptoKey (DEP0204); a caller that only signs through WebCrypto may ask otherwise.
      expect(k.privateKey.extractable).toBe(true);
      expect((await generateHolderKey(alg, { extractable: false })).privateKey.extractable).toBe(false);
      expect({ ES256: 'EC', EdDSA: 'OKP', RS256: 'RSA' }[alg]).toBe(k.publicJwk.kty);
    },
  );

  it('ES256 is the default', async () => {
    expect((await generateHolderKey()).publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256' });
  });

  it('computes the RFC 7638 §3.1 example thumbprint, ignoring non-required members', async () => {
    const jwk = {
      kty: 'RSA',
      n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
      alg: 'RS256',
      kid: '2011-04-29',
    };
    expect(await jwkThumbprint(jwk)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
    expect(Buffer.from(await jwkThumbprintBytes(jwk)).toString('base64url')).toBe(
      'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    );
  });
});

describe('base58btc', () => {
  it('round-trips any bytes, keeping leading zeros as leading 1s', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = base58btcEncode(bytes);
        expect(Buffer.from(base58btcDecode(text)).equals(Buffer.from(bytes))).toBe(true);
        const zeros = bytes.findIndex((b) => b !== 0);
        expect(text.startsWith('1'.repeat(zeros === -1 ? bytes.length : zeros))).toBe(true);
      }),
    );
  });

  it('matches the Bitcoin alphabet on a known value and rejects 0, O, I, l', () => {
    expect(base58btcEncode(Buffer.from('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U');
    for (const bad of ['0', 'O', 'I', 'l']) expect(() => base58btcDecode(`2N${bad}`)).toThrow();
  });
});

describe('did:key', () => {
  it('encodes P-256 (compressed, 0x1200) as zDn... and Ed25519 (0xed) as z6Mk..., and decodes back', async () => {
    const p256 = await generateHolderKey('ES256');
    const ed = await generateHolderKey('EdDSA');
    expect(didKeyFromJwk(p256.publicJwk)).toMatch(/^did:key:zDn/);
    expect(didKeyFromJwk(ed.publicJwk)).toMatch(/^did:key:z6Mk/);
    expect(didKeyToJwk(didKeyFromJwk(p256.publicJwk))).toEqual(p256.publicJwk);
    expect(didKeyToJwk(didKeyFromJwk(ed.publicJwk))).toEqual(ed.publicJwk);
  });

  it('resolves to a document whose only verification method serves every relationship', async () => {
    const k = await generateHolderKey('ES256');
    const did = didKeyFromJwk(k.publicJwk);
    const doc = resolveDid(did);
    const vm = `${did}#${did.slice('did:key:'.length)}`;
    expect(doc).toMatchObject({ id: did, authentication: [vm], assertionMethod: [vm] });
    expect(resolveVerificationKey(vm)).toEqual(k.publicJwk);
  });

  it('decodes the W3C Data Integrity test-vector keys', () => {
    expect(didKeyToJwk('did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2')).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: 'sA2Nk45_dz1RVlqtNqYj9TRPf10ZYPnPPo4SYg6igQ8',
    });
    expect(didKeyToJwk('did:key:zDnaepBuvsQ8cpsWrVKw8fbpGpvPeNSjVPTWoq6cRqaYzBKVP')).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
    });
  });

  it.each([
    ['not a DID', 'key:z6Mk'],
    ['no multibase prefix', 'did:key:6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2'],
    ['a base58 character outside the alphabet', 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ0'],
    ['a truncated key', 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4sw'],
    ['an unknown multicodec', `did:key:z${base58btcEncode(new Uint8Array([0x12, 0x34, 1, 2, 3]))}`],
    [
      'a P-256 x coordinate beyond the field',
      `did:key:z${base58btcEncode(new Uint8Array([0x80, 0x24, 2, ...new Array(32).fill(0xff)]))}`,
    ],
    ['a fragment that is not the key', 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2#key-1'],
    ['an unsupported method', 'did:example:123'],
    ['an empty string', ''],
  ])('refuses %s with DidResolutionError', (_what, did) => {
    expect(() => resolveVerificationKey(did)).toThrow(DidResolutionError);
  });

  it('property: random strings after did:key: never resolve to anything but a DidResolutionError or a key', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (tail) => {
        try {
          const jwk = didKeyToJwk(`did:key:${tail}`);
          expect(['EC', 'OKP']).toContain(jwk.kty);
        } catch (error) {
          expect(error).toBeInstanceOf(DidResolutionError);
        }
      }),
    );
  });
});

describe('did:jwk', () => {
  it('round-trips a public JWK and drops private members', async () => {
    const k = await generateHolderKey('EdDSA', { extractable: true });
    const { exportJWK } = await import('jose');
    const privateJwk = await exportJWK(k.privateKey);
    const did = didJwkFromJwk(privateJwk);
    expect(didJwkToJwk(did)).toEqual(k.publicJwk);
    expect(resolveDid(did).verificationMethod[0]).toMatchObject({ id: `${did}#0`, publicKeyJwk: k.publicJwk });
  });

  it.each([
    ['non-base64url', 'did:jwk:***'],
    ['not JSON', `did:jwk:${Buffer.from('hello').toString('base64url')}`],
    ['a JSON array', `did:jwk:${Buffer.from('[1]').toString('base64url')}`],
    [
      'a private key',
      `did:jwk:${Buffer.from(JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'AA', d: 'AA' })).toString('base64url')}`,
    ],
    ['an unknown kty', `did:jwk:${Buffer.from(JSON.stringify({ kty: 'oct', k: 'AA' })).toString('base64url')}`],
    [
      'a fragment other than #0',
      `did:jwk:${Buffer.from(JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'AA' })).toString('base64url')}#1`,
    ],
  ])('refuses %s', (_what, did) => {
    expect(() => didJwkToJwk(did)).toThrow(DidResolutionError);
  });
});

describe('did:web', () => {
  it('builds the DID, the document URL and the document from a JWK and a domain', async () => {
    const k = await generateHolderKey('ES256');
    expect(didWebFromDomain('Example.COM')).toBe('did:web:example.com');
    expect(didWebFromDomain('example.com:8443', ['users', 'alice'])).toBe('did:web:example.com%3A8443:users:alice');
    expect(didWebDocumentUrl('did:web:example.com')).toBe('https://example.com/.well-known/did.json');
    expect(didWebDocumentUrl('did:web:example.com%3A8443:users:alice')).toBe(
      'https://example.com:8443/users/alice/did.json',
    );
    const doc = await didWebDocument(k.publicJwk, 'issuer.example');
    expect(doc.id).toBe('did:web:issuer.example');
    expect(doc.verificationMethod[0]).toMatchObject({
      id: `did:web:issuer.example#${k.kid}`,
      controller: 'did:web:issuer.example',
      publicKeyJwk: k.publicJwk,
    });
    expect(
      resolveVerificationKey(`did:web:issuer.example#${k.kid}`, { webDocuments: { 'did:web:issuer.example': doc } }),
    ).toEqual(k.publicJwk);
  });

  it('refuses malformed did:web ids, documents for another DID, and resolution without the fetched document', async () => {
    expect(() => didWebFromDomain('exa mple.com')).toThrow(DidResolutionError);
    expect(() => didWebFromDomain('example.com', ['a/b'])).toThrow(DidResolutionError);
    expect(() => didWebDocumentUrl('did:web:')).toThrow(DidResolutionError);
    expect(() => didWebDocumentUrl('did:web:exa_mple.com')).toThrow(DidResolutionError);
    expect(() => resolveDid('did:web:issuer.example')).toThrow(/no network/);
    const k = await generateHolderKey('ES256');
    const doc = await didWebDocument(k.publicJwk, 'other.example');
    expect(() => resolveDid('did:web:issuer.example', { webDocuments: { 'did:web:issuer.example': doc } })).toThrow(
      DidResolutionError,
    );
  });
});
