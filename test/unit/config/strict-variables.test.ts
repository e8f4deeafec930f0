import { describe, expect, it } from 'vitest';
import { enabledExtensions, loadConfig } from '../../../adapters/config.ts';

// Issue 45 item 19: every variable is parsed at start; a bad value names the variable and what it accepts.
describe('configuration is parsed strictly', () => {
  for (const name of [
    'DPOP_NONCE_REQUIRED',
    'OID4VCI_ENCRYPTION_REQUIRED',
    'SHOWCASE_SPIFFE_ENABLED',
    'OUTBOUND_ALLOW_LOOPBACK',
    'DYNAMIC_CLIENTS',
    'MCP_USER_ENDPOINT',
  ])
    it(`${name}=perhaps stops the start, naming ${name} and true or false`, () => {
      expect(() => loadConfig({ [name]: 'perhaps' })).toThrow(new RegExp(`^${name} must be true or false`));
      expect(() => loadConfig({ [name]: 'true' })).not.toThrow();
      expect(() => loadConfig({ [name]: 'false' })).not.toThrow();
    });

  it('TRUST_PROXY takes addresses and CIDR ranges, and names itself when an entry is neither', () => {
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, ::1, 192.168.0.0/16' }).trustProxy).toEqual([
      '10.0.0.1',
      '::1',
      '192.168.0.0/16',
    ]);
    for (const bad of ['999.1.1.1', 'proxy.example', '10.0.0.0/99', '1.2'])
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/^TRUST_PROXY must be/);
  });

  it('URL variables take http(s) URLs only, and name themselves otherwise', () => {
    for (const name of ['BASE_URL', 'WALLET_URL', 'WALLET_BACKEND_ORIGIN', 'SHOWCASE_BASE_URL', 'REPOSITORY_URL']) {
      for (const bad of [
        'localhost:3000',
        'ftp://x.example',
        'https://u:p@x.example',
        'https://x.example/?q=1',
        'https://x.example/#f',
      ])
        expect(() => loadConfig({ [name]: bad }), `${name}=${bad}`).toThrow(
          new RegExp(`^${name} must be an http or https URL`),
        );
      expect(() => loadConfig({ [name]: 'https://x.example/' }), name).not.toThrow();
    }
    expect(loadConfig({ BASE_URL: 'https://portico.example/' }).baseUrl).toBe('https://portico.example');
  });

  it('ports, SHOWCASE_ENV, the SPIFFE trust domain and PEM anchors are checked and named', () => {
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/^PORT must be a port number from 0 to 65535/);
    expect(() => loadConfig({ WALLET_PORT: 'x' })).toThrow(/^WALLET_PORT must be a non-negative integer/);
    expect(() => loadConfig({ SHOWCASE_ENV: 'prod' })).toThrow(/^SHOWCASE_ENV must be one of production, development/);
    expect(loadConfig({ SHOWCASE_ENV: 'development' }).palette.production).toBe(false);
    expect(() => loadConfig({ SHOWCASE_SPIFFE_TRUST_DOMAIN: 'Bad Domain' })).toThrow(
      /^SHOWCASE_SPIFFE_TRUST_DOMAIN must be a trust domain/,
    );
    expect(() => loadConfig({ OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM: 'not a pem' })).toThrow(
      /^OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM is neither PEM text nor the path/,
    );
    expect(() =>
      loadConfig({
        OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
      }),
    ).toThrow(/^OID4VCI_ATTESTATION_TRUST_ANCHOR_PEM holds a certificate that does not parse/);
  });

  it('both extensions are off unless their variable says true (decisions §11)', () => {
    expect(loadConfig({}).extensions).toEqual({ dynamicClients: false, mcpUserEndpoint: false });
    expect([...enabledExtensions(loadConfig({ DYNAMIC_CLIENTS: 'true', MCP_USER_ENDPOINT: 'true' }))]).toEqual([
      'DYNAMIC_CLIENTS',
      'MCP_USER_ENDPOINT',
    ]);
  });
});
