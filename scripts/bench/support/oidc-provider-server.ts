import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair } from 'jose';

/**
 * Baseline for the OAuth benchmark: panva's oidc-provider with a client_credentials client equivalent
 * to our `machine-client`, issuing ES256 JWT access tokens. Run as its own process; prints "listening".
 */
const port = Number(process.argv[2]);
const es = await generateKeyPair('ES256', { extractable: true });
const rs = await generateKeyPair('RS256', { extractable: true });
const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: 'machine-client',
      client_secret: 'machine-client-secret',
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: {
    keys: [
      { ...(await exportJWK(es.privateKey)), alg: 'ES256', use: 'sig', kid: 'es' },
      { ...(await exportJWK(rs.privateKey)), alg: 'RS256', use: 'sig', kid: 'rs' },
    ],
  },
  scopes: ['api:read'],
  features: {
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'https://resource.example',
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: 'api:read', accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } }),
    },
  },
});
provider.listen(port, '127.0.0.1', () => console.log('listening'));
