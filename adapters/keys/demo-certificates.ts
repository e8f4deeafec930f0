import { createIacaRoot, type CertifiedKey } from '../../services/credentials/mdoc/index.ts';
import { createSigningCertificate, type AltName } from '../../services/credentials/x509/generate.ts';

const DAY = 86_400_000;

/** A demo CA made at first start: valid from a day ago for five years. */
export const demoCa = (name: string, nowMs: number): Promise<CertifiedKey> =>
  createIacaRoot({ name, notBefore: new Date(nowMs - DAY), notAfter: new Date(nowMs + 5 * 365 * DAY) });

/** A demo signing certificate under `ca`: valid from a day ago for a year. */
export const demoSigner = (ca: CertifiedKey, name: string, nowMs: number, altNames?: AltName[]) =>
  createSigningCertificate({
    ca,
    name,
    notBefore: new Date(nowMs - DAY),
    notAfter: new Date(nowMs + 365 * DAY),
    ...(altNames ? { altNames } : {}),
  });
