import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createDocumentSigner, createIacaRoot } from '../../services/credentials/mdoc/index.ts';
import type { IssuerPki } from '../../services/issuer/settings.ts';
import { loadOrCreateCertifiedKeys } from '../keys/certified-key-file.ts';
import { demoCa, demoSigner } from '../keys/demo-certificates.ts';

const DAY = 86_400_000;

/**
 * The issuer's mdoc PKI (decisions section 8): an IACA root and a document signer whose `C` is the
 * mDL's issuing country, made on first start and kept in `$DATA_DIR/mdoc/pki.json` (mode 0600,
 * written to a temporary file and renamed).
 */
export async function loadIssuerPki(
  dataDir: string,
  issuerUrl: string,
  country: string,
  nowMs: number,
): Promise<IssuerPki> {
  const { iaca, documentSigner } = await loadOrCreateCertifiedKeys(join(dataDir, 'mdoc', 'pki.json'), async () => {
    const root = await createIacaRoot({
      name: `CN=Portico IACA, O=Portico, C=${country}`,
      notBefore: new Date(nowMs - DAY),
      notAfter: new Date(nowMs + 5 * 365 * DAY),
      issuerUrl,
    });
    const signer = await createDocumentSigner({
      iaca: root,
      name: `CN=Portico Document Signer, O=Portico, C=${country}`,
      notBefore: new Date(nowMs - DAY),
      notAfter: new Date(nowMs + 365 * DAY),
      issuerUrl,
    });
    return { iaca: root, documentSigner: signer };
  });
  return {
    iaca,
    documentSigner,
    requestEncryption: await loadRequestEncryptionKey(dataDir),
    attester: await loadDemoAttester(dataDir, nowMs),
  };
}

/**
 * The issuer's credential request encryption key (P-256, ECDH-ES, `kid` `req-enc-1`), kept in
 * `$DATA_DIR/oid4vci/encryption.json` (0600) so wallets holding the published key keep working.
 */
async function loadRequestEncryptionKey(dataDir: string): Promise<IssuerPki['requestEncryption']> {
  const file = join(dataDir, 'oid4vci', 'encryption.json');
  let privateJwk: JWK;
  if (existsSync(file)) privateJwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
  else {
    const { privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    privateJwk = { ...(await exportJWK(privateKey)), kid: 'req-enc-1', use: 'enc', alg: 'ECDH-ES' };
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(privateJwk), { mode: 0o600 });
    renameSync(tmp, file);
  }
  const { d: _d, ...publicJwk } = privateJwk;
  return { publicJwk, privateKey: (await importJWK(privateJwk, 'ECDH-ES')) as CryptoKey };
}

/**
 * The demo attester (decisions section 8): a CA and two signing certificates, one for client
 * attestations and one for key attestations. Their private keys are published on purpose at
 * `/oid4vci/demo/attester`, shaped for the wallet's WALLET_CLIENT_ATTESTATION_*_JWK_JSON.
 */
async function loadDemoAttester(dataDir: string, nowMs: number): Promise<IssuerPki['attester']> {
  return loadOrCreateCertifiedKeys(join(dataDir, 'oid4vci', 'attester.json'), async () => {
    const ca = await demoCa('CN=Portico Demo Wallet Attester CA, O=Portico, C=FR', nowMs);
    const clientAttester = await demoSigner(ca, 'CN=Portico Demo Client Attester, O=Portico, C=FR', nowMs);
    const keyAttester = await demoSigner(ca, 'CN=Portico Demo Key Attester, O=Portico, C=FR', nowMs);
    return { ca, clientAttester, keyAttester };
  });
}
