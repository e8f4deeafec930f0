import { X509Certificate } from 'node:crypto';
import { rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { VerifierPki } from '../../services/verifier/settings.ts';
import { loadOrCreateCertifiedKeys } from '../keys/certified-key-file.ts';
import { demoCa, demoSigner } from '../keys/demo-certificates.ts';

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
    const ca = await demoCa('CN=Portico Verifier CA, O=Portico, C=FR', nowMs);
    const leaf = await demoSigner(ca, `CN=${host}, O=Portico Verifier, C=FR`, nowMs, [
      { type: isIP(host) ? 'ip' : 'dns', value: host },
    ]);
    return { ca, leaf };
  };
  const pki = await loadOrCreateCertifiedKeys(file, create);
  if (leafNames(pki.leaf.pem).includes(sanEntry(host))) return pki;
  rmSync(file);
  return loadOrCreateCertifiedKeys(file, create);
}
