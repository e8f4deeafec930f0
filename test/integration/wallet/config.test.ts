import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../adapters/config.ts';
import { parseDuration } from '../../../adapters/wallet/config.ts';
import { freePort } from '../../support/wallet-server.ts';

// Issue 17: every WALLET_* variable is checked at start; a bad value stops start, naming the variable.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'portico-wallet-config-'));
const notPem = join(dir, 'not.pem');
writeFileSync(notPem, 'hello');

const BAD: Array<[string, string]> = [
  ['WALLET_TARGET_BASE_URL', 'not a url'],
  ['WALLET_ISSUER_BASE_URL', 'ftp://issuer.example'],
  ['WALLET_ALLOWED_CORS_ORIGINS', 'https://ok.example,javascript:alert(1)'],
  ['WALLET_DEFAULT_SUBJECT', 'x'.repeat(201)],
  ['WALLET_DEFAULT_CREDENTIAL_FORMAT', 'pdf'],
  ['WALLET_DID_METHOD', 'ion'],
  ['WALLET_DEFAULT_SIGNING_ALG', 'HS256'],
  ['WALLET_SESSION_TTL', '20 minutes'],
  ['WALLET_STRICT_SESSION_ISOLATION', 'yes'],
  ['WALLET_ALLOW_EXTERNAL_VERIFIERS', '1'],
  ['WALLET_TRUSTED_VERIFIER_ATTESTATION_ISSUERS', 'https://a.example,nope'],
  ['WALLET_DEVICE_KEY_PATH', notPem],
  ['WALLET_VERIFIER_X509_TRUST_ANCHOR_PEM', '/does/not/exist.pem'],
  ['WALLET_MDOC_IACA_ROOT_PEM', notPem],
  ['WALLET_CLIENT_ATTESTATION_ATTESTER_JWK_JSON', '{"kty":"EC","crv":"P-256","x":"a","y":"b"}'],
  ['WALLET_CLIENT_ATTESTATION_KEY_ATTESTATION_JWK_JSON', 'not json'],
  ['WALLET_OID4VCI_ATTESTED_CLIENT_ID', 'has space'],
  ['WALLET_CLIENT_ATTESTATION_ISSUER', 'attester'],
  ['WALLET_KEY_ATTESTATION_KEY_STORAGE', 'ISO 18045'],
  ['WALLET_KEY_ATTESTATION_USER_AUTHENTICATION', 'a,B!'],
  ['WALLET_DNS_OVERRIDES', 'host=not-an-ip'],
];

function startWallet(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return freePort().then(
    (port) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', 'wallet'], {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            WALLET_PORT: String(port),
            DATA_DIR: mkdtempSync(join(dir, 'data-')),
            ...env,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        let stdout = '';
        child.stderr.on('data', (d) => (stderr += d.toString()));
        child.stdout.on('data', (d) => {
          stdout += d.toString();
          if (stdout.includes('listening')) child.kill('SIGTERM');
        });
        // 'close': at 'exit' the last output may still be unread.
        child.on('close', (code) => resolve({ code, stderr, stdout }));
      }),
  );
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('wallet configuration (issue 17)', () => {
  it('each bad WALLET_* value stops start with a non-zero exit naming the variable (child processes)', async () => {
    const results: Array<[string, Awaited<ReturnType<typeof startWallet>>]> = [];
    for (let i = 0; i < BAD.length; i += 4) {
      const batch = BAD.slice(i, i + 4);
      results.push(
        ...(await Promise.all(
          batch.map(
            async ([name, value]) =>
              [name, await startWallet({ [name]: value })] as [string, Awaited<ReturnType<typeof startWallet>>],
          ),
        )),
      );
    }
    for (const [name, result] of results) {
      expect(result.code, `${name}: ${result.stderr}`).not.toBe(0);
      expect(result.stderr, name).toContain(name);
      expect(result.stdout, name).not.toContain('listening');
    }
  }, 120_000);

  it('starts with every default, and with good values of every variable', async () => {
    expect((await startWallet({})).stdout).toContain('wallet listening');
    const good = await startWallet({
      WALLET_SESSION_TTL: '1h30m',
      WALLET_DID_METHOD: 'web',
      WALLET_DEFAULT_SIGNING_ALG: 'EdDSA',
      WALLET_STRICT_SESSION_ISOLATION: 'false',
      WALLET_DNS_OVERRIDES: 'issuer.test=192.0.2.10',
      WALLET_KEY_ATTESTATION_KEY_STORAGE: 'iso_18045_moderate',
    });
    expect(good.stdout).toContain('wallet listening');
  }, 60_000);

  it('reads defaults and values as decisions section 10 says', () => {
    const base = loadConfig({
      BASE_URL: 'https://portico.example',
      WALLET_URL: 'https://wallet.portico.example',
      DATA_DIR: dir,
    });
    const settings = base.wallet;
    expect(settings).toMatchObject({
      targetBaseUrl: 'https://portico.example',
      issuerBaseUrl: 'https://portico.example',
      allowedCorsOrigins: ['https://portico.example', 'https://www.portico.example'],
      defaultSubject: 'did:example:wallet',
      defaultCredentialFormat: 'mso_mdoc',
      didMethod: 'key',
      defaultSigningAlg: 'ES256',
      sessionTtlMs: 20 * 60_000,
      strictSessionIsolation: true,
      allowExternalVerifiers: true,
      haipEnabled: false,
      attestedClientId: 'portico-wallet',
      clientAttestationIssuer: 'https://wallet.portico.example/attester',
    });
    expect(parseDuration('T', '90s')).toBe(90_000);
    expect(parseDuration('T', '1h30m')).toBe(5_400_000);
    expect(() => parseDuration('T', '0s')).toThrow(/T/);
    const issuer = loadConfig({
      BASE_URL: 'https://portico.example',
      WALLET_TARGET_BASE_URL: 'https://verifier.example/',
      WALLET_ISSUER_BASE_URL: 'https://issuer.example',
      DATA_DIR: dir,
    }).wallet;
    expect([issuer.targetBaseUrl, issuer.issuerBaseUrl]).toEqual([
      'https://verifier.example',
      'https://issuer.example',
    ]);
  });
});
