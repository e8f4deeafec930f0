/** Settings of the workload identity service (spec section 1 "SPIFFE service", decisions section 7). */
export interface SpiffeSettings {
  enabled: boolean;
  socketPath: string;
  trustDomain: string;
  spireServerAddress: string;
  baseUrl: string;
}

/** What the configuration says of the workload identity service; unset members take the defaults below. */
export interface SpiffeOptions {
  enabled: boolean;
  socketPath?: string;
  trustDomain?: string;
  spireServerAddress?: string;
}

export function spiffeSettings(options: SpiffeOptions, mainBaseUrl: string, showcaseBaseUrl: string): SpiffeSettings {
  return {
    enabled: options.enabled,
    socketPath: options.socketPath || 'unix:///run/spire/sockets/agent.sock',
    trustDomain: options.trustDomain || new URL(mainBaseUrl).hostname,
    spireServerAddress: options.spireServerAddress || 'spire-server:8081',
    baseUrl: showcaseBaseUrl,
  };
}

/** The endpoints of spec section 4 "Workload identity service". */
export const SPIFFE_ENDPOINTS: Array<{ method: 'GET' | 'POST'; path: string; summary: string }> = [
  { method: 'GET', path: '/spiffe/status', summary: 'Status' },
  { method: 'GET', path: '/spiffe/.well-known/spiffe-bundle', summary: 'Trust bundle in JWKS format' },
  { method: 'GET', path: '/spiffe/svid/x509', summary: 'X.509-SVID' },
  { method: 'GET', path: '/spiffe/svid/x509/chain', summary: 'X.509-SVID chain, PEM' },
  { method: 'GET', path: '/spiffe/svid/jwt', summary: 'JWT-SVID' },
  { method: 'GET', path: '/spiffe/svid/info', summary: 'SVID metadata' },
  { method: 'POST', path: '/spiffe/validate/jwt', summary: 'Validate a JWT-SVID' },
  { method: 'POST', path: '/spiffe/validate/x509', summary: 'Validate an X.509-SVID' },
  { method: 'GET', path: '/spiffe/workload', summary: 'Workload info' },
  { method: 'GET', path: '/spiffe/trust-bundle', summary: 'Trust bundle info' },
  { method: 'POST', path: '/spiffe/demo/mtls/call', summary: 'mTLS demo call' },
  { method: 'POST', path: '/spiffe/demo/jwt-auth/call', summary: 'JWT auth demo call' },
  { method: 'GET', path: '/spiffe/demo/rotation', summary: 'Certificate rotation demo' },
];
