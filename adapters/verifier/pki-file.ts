import { X509Certificate } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { createIacaRoot } from '../../services/credentials/mdoc/index.ts';
import { createSigningCertificate } from '../../services/credentials/x509/generate.ts';
import type { VerifierPki } from '../../services/verifier/settings.ts';
import { loadOrCreateCertifiedKeys } from '../keys/certified-key-file.ts';

const DAY = 86_400_000;

/** The SAN entry naming `host` as node:crypto prints it (`DNS:host` or `IP Address:host`). */
const sanEntry = (host: string) => (isIP(host) ? `IP Address:${host}` : `DNS:${host}`);
const leafNames = (pem: string) => new X509Certificate(pem).subjectAltName?.split(', ') ?? [];

/**
 * The verifier's request-object signing material (decisions section 9): a CA and a leaf whose SAN
 * is the BASE_URL host, kept in `$DATA_DIR/oid4vp/x509.json` (0600). Made on first start, and again
 * when BASE_URL names another host than the stored leaf does.
 */
export async function loadVerifierPki(dataDir: string, host: string, nowMs: number): Promise<VerifierPki> {
  const file = join(dataDir, 'oid4vp', 'x509.json');
  const create = async () => {
    const ca = await createIacaRoot({
      name: 'CN=Portico Verifier CA, O=Portico, C=FR',
      notBefore: new Date(nowMs - DAY),
      notAfter: new Date(nowMs + 5 * 365 * DAY),
    });
    const leaf = await createSigningCertificate({
      ca,
      name: `CN=${host}, O=Portico Verifier, C=FR`,
      notBefore: new Date(nowMs - DAY),
      notAfter: new Date(nowMs + 365 * DAY),
      altNames: [{ type: isIP(host) ? 'ip' : 'dns', value: host }],
    });
    return { ca, leaf };
  };
  const pki = await loadOrCreateCertifiedKeys(file, create);
  if (leafNames(pki.leaf.pem).includes(sanEntry(host))) return pki;
  rmSync(file);
  return loadOrCreateCertifiedKeys(file, create);
}
