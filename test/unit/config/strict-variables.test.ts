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

  it('both extensions are off unless their variable says true (decisions §11)', () => {
    expect(loadConfig({}).extensions).toEqual({ dynamicClients: false, mcpUserEndpoint: false });
    expect([...enabledExtensions(loadConfig({ DYNAMIC_CLIENTS: 'true', MCP_USER_ENDPOINT: 'true' }))]).toEqual([
      'DYNAMIC_CLIENTS',
      'MCP_USER_ENDPOINT',
    ]);
  });
});
