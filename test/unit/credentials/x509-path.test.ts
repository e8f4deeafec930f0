import { beforeAll, describe, expect, it } from 'vitest';
import { createIacaRoot, type CertifiedKey } from '../../../services/credentials/mdoc/index.ts';
import { CheckFailed } from '../../../services/credentials/result.ts';
import { createSigningCertificate } from '../../../services/credentials/x509/generate.ts';
import { validatePath } from '../../../services/credentials/x509/path.ts';
import { NOW } from './helpers.ts';
import { at } from './mdoc-helpers.ts';

// Issue 37: one X.509 path validator, on pkijs, under mdoc chains, x5c, attestations and SPIFFE.
const DAY = 86_400;
let root: CertifiedKey;
let other: CertifiedKey;
let leaf: CertifiedKey;
let notCa: CertifiedKey;
let underNotCa: CertifiedKey;
beforeAll(async () => {
  root = await createIacaRoot({ name: 'CN=Path Root, C=FR', notBefore: at(NOW - DAY), notAfter: at(NOW + 365 * DAY) });
  other = await createIacaRoot({
    name: 'CN=Other Root, C=FR',
    notBefore: at(NOW - DAY),
    notAfter: at(NOW + 365 * DAY),
  });
  leaf = await createSigningCertificate({
    ca: root,
    name: 'CN=leaf',
    notBefore: at(NOW - 60),
    notAfter: at(NOW + DAY),
  });
  notCa = await createSigningCertificate({
    ca: root,
    name: 'CN=not a CA',
    notBefore: at(NOW - 60),
    notAfter: at(NOW + DAY),
  });
  underNotCa = await createSigningCertificate({
    ca: notCa,
    name: 'CN=under a non-CA',
    notBefore: at(NOW - 60),
    notAfter: at(NOW + DAY),
  });
});

const reason = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CheckFailed);
  return (error as CheckFailed).reason;
};

describe('validatePath (pkijs)', () => {
  it('builds leaf -> anchor, with or without the anchor in the chain sent', async () => {
    const direct = await validatePath([leaf.certificate], [root.pem], NOW, 'chain');
    const withRoot = await validatePath([leaf.certificate, root.certificate], [root.certificate], NOW, 'chain');
    for (const p of [direct, withRoot]) {
      expect(p.path.map((c) => c.subject)).toEqual(['CN=leaf', 'CN=Path Root\nC=FR']);
      expect(p.root.subject).toBe('CN=Path Root\nC=FR');
    }
  });

  it('a pinned leaf (itself an anchor) is its own path', async () => {
    const p = await validatePath([leaf.certificate], [leaf.certificate], NOW, 'x5c');
    expect(p.path).toHaveLength(1);
  });

  it('refuses another anchor, an issuer that is not a CA, and a time outside validity', async () => {
    expect(await reason(validatePath([leaf.certificate], [other.pem], NOW, 'chain'))).toMatch(
      /does not lead to a trusted anchor/,
    );
    expect(await reason(validatePath([underNotCa.certificate, notCa.certificate], [root.pem], NOW, 'chain'))).toMatch(
      /not a CA|does not lead to a trusted anchor/,
    );
    expect(await reason(validatePath([leaf.certificate], [root.pem], NOW + 2 * DAY, 'chain'))).toMatch(
      /is not valid at the verification time/,
    );
  });

  it('a path built once is still checked for validity on every later call', async () => {
    await validatePath([leaf.certificate], [root.pem], NOW, 'chain');
    expect(await reason(validatePath([leaf.certificate], [root.pem], NOW + 2 * DAY, 'chain'))).toMatch(
      /is not valid at the verification time/,
    );
    expect(await reason(validatePath([leaf.certificate], [root.pem], NOW - 3600, 'chain'))).toMatch(
      /is not valid at the verification time/,
    );
  });

  it('refuses an empty chain, no anchors, and bytes that are no certificate', async () => {
    expect(await reason(validatePath([], [root.pem], NOW, 'chain'))).toBe('the certificate chain is empty');
    expect(await reason(validatePath([leaf.certificate], [], NOW, 'chain'))).toBe('no trust anchor is configured');
    expect(await reason(validatePath([new Uint8Array([1, 2, 3])], [root.pem], NOW, 'chain'))).toBe(
      'a certificate cannot be parsed',
    );
  });
});
