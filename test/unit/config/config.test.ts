import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../adapters/config.ts';

// Issue 37 (one configuration): the variables the main origin's parts used to read raw are parsed once.
describe('loadConfig', () => {
  it('parses flags, demo overrides, the SPIFFE options and the palette settings into typed fields', () => {
    const config = loadConfig({
      DPOP_NONCE_REQUIRED: 'true',
      OID4VCI_ENCRYPTION_REQUIRED: 'true',
      LOG_LEVEL: 'info',
      DEMO_PASSWORD_ALICE: 'wonderland',
      MACHINE_CLIENT_SECRET: 'm-secret',
      SHOWCASE_SPIFFE_ENABLED: 'true',
      SPIRE_SERVER_ADDRESS: 'spire:9',
      SHOWCASE_ENV: 'production',
      SHOWCASE_PALETTE_DB: '/p.db',
      CONFORMANCE_REPORT: '/r.json',
      MDOC_IACA_ROOT_PEM: '/iaca.pem',
    });
    expect(config).toMatchObject({
      dpopNonceRequired: true,
      oid4vci: { encryptionRequired: true, attestationTrustAnchorsPem: [] },
      logRequests: true,
      palette: { file: '/p.db', production: true },
      conformanceReport: '/r.json',
      mdocIacaRootPem: '/iaca.pem',
      spiffe: { enabled: true, spireServerAddress: 'spire:9' },
    });
    expect(config.demo.passwords.get('alice')).toBe('wonderland');
    expect(config.demo.clientSecrets.get('machine-client')).toBe('m-secret');
    expect(config.demo.clientSecrets.has('demo-app')).toBe(false);
  });

  it('defaults: no flags, no overrides, SPIFFE off', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      dpopNonceRequired: false,
      oid4vci: { encryptionRequired: false },
      logRequests: false,
      palette: { production: false },
      spiffe: { enabled: false },
    });
    expect(config.demo.passwords.size).toBe(0);
    expect(config.conformanceReport).toBeUndefined();
  });
});
