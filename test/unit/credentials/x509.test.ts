import { X509Certificate } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDocumentSigner, createIacaRoot, type CertifiedKey } from '../../../services/credentials/mdoc/index.ts';
import { validateX5c, x509Hash } from '../../../services/credentials/x509/index.ts';
import { NOW } from './helpers.ts';
import { at } from './mdoc-helpers.ts';

const b64 = (der: Uint8Array) => Buffer.from(der).toString('base64');
let anchor: CertifiedKey;
let leaf: CertifiedKey;
beforeAll(async () => {
  anchor = await createIacaRoot({
    name: 'CN=Verifier Trust Anchor, C=FR',
    notBefore: at(NOW - 86_400),
    notAfter: at(NOW + 365 * 86_400),
  });
  leaf = await createDocumentSigner({
    iaca: anchor,
    name: 'CN=verifier.example, C=FR',
    notBefore: at(NOW - 3600),
    notAfter: at(NOW + 30 * 86_400),
  });
});

describe('request object x5c (OpenID4VP wallet behaviour 2) and x509_hash', () => {
  it('x509_hash is base64url SHA-256 of the leaf DER', () => {
    const fingerprint = new X509Certificate(Buffer.from(leaf.certificate)).fingerprint256.replace(/:/g, '');
    expect(x509Hash(leaf.certificate)).toBe(Buffer.from(fingerprint, 'hex').toString('base64url'));
    expect(x509Hash(leaf.pem)).toBe(x509Hash(leaf.certificate));
  });

  it('accepts a chain to the configured anchor, matching the x509_hash client id', async () => {
    const r = await validateX5c([b64(leaf.certificate), b64(anchor.certificate)], {
      trustAnchors: [anchor.pem],
      now: NOW,
      expectedHash: x509Hash(leaf.certificate),
    });
    expect(r).toMatchObject({ valid: true, x509Hash: x509Hash(leaf.certificate) });
    expect((await validateX5c([b64(leaf.certificate)], { trustAnchors: [anchor.pem], now: NOW })).valid).toBe(true);
  });

  it('refuses another anchor, system roots alone, an expired leaf, a hash mismatch and malformed x5c, always as check x5c', async () => {
    const other = await createIacaRoot({ notBefore: at(NOW - 86_400), notAfter: at(NOW + 86_400) });
    const x5c = [b64(leaf.certificate)];
    expect(await validateX5c(x5c, { trustAnchors: [other.pem], now: NOW })).toMatchObject({
      valid: false,
      check: 'x5c',
    });
    expect(await validateX5c(x5c, { systemRoots: true, now: NOW })).toMatchObject({ valid: false, check: 'x5c' });
    expect(await validateX5c(x5c, { trustAnchors: [anchor.pem], now: NOW + 31 * 86_400 })).toMatchObject({
      valid: false,
      check: 'x5c',
      reason: expect.stringContaining('not valid'),
    });
    expect(
      await validateX5c(x5c, { trustAnchors: [anchor.pem], now: NOW, expectedHash: x509Hash(anchor.certificate) }),
    ).toMatchObject({ valid: false, check: 'x5c' });
    expect(await validateX5c([], { trustAnchors: [anchor.pem], now: NOW })).toMatchObject({
      valid: false,
      check: 'x5c',
    });
    expect(await validateX5c(['not base64!'], { trustAnchors: [anchor.pem], now: NOW })).toMatchObject({
      valid: false,
      check: 'x5c',
    });
    expect(await validateX5c(['AAAA'], { trustAnchors: [anchor.pem], now: NOW })).toMatchObject({
      valid: false,
      check: 'x5c',
    });
  });
});
