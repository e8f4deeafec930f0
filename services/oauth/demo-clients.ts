import type { JWK } from 'jose';
import type { DemoOverrides } from './demo-overrides.ts';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

/** A pre-registered demo client (decisions section 3); everything here is published. */
export interface DemoClient {
  client_id: string;
  client_name: string;
  client_type: 'confidential' | 'public';
  client_secret: string | null;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  token_endpoint_auth_signing_alg?: string;
  grant_types: string[];
  scope: string;
  jwks?: { keys: JWK[] };
  private_jwks?: { keys: JWK[] };
}

/**
 * Redirect URIs of the demo clients: the origin's own callback page, loopback ports for tools, and the
 * flow runner's callback, so a run can take this origin itself as its target (docs/flows.md).
 */
function demoRedirectUris(baseUrl: string): string[] {
  return [
    `${baseUrl}/callback`,
    'http://127.0.0.1:8765/callback',
    'http://localhost:8765/callback',
    `${baseUrl}/runs/callback`,
  ];
}

export function demoClients(
  baseUrl: string,
  overrides: Pick<DemoOverrides, 'clientSecrets'>,
  pkjwt: { public: JWK[]; private: JWK[] },
): DemoClient[] {
  const redirect_uris = demoRedirectUris(baseUrl);
  const post_logout_redirect_uris = [`${baseUrl}/`, 'http://127.0.0.1:8765/logged-out'];
  const code = ['authorization_code', 'refresh_token'];
  // `ssf`: the Shared Signals management API (docs/ssf.md); `scim`: the client's SCIM tenant (docs/scim.md).
  // Both by client_credentials.
  const scope = 'openid profile email phone offline_access api:read api:write ssf scim';
  /** A web app: the published redirect URIs, the code and refresh grants, and the given authentication. */
  const webApp = (
    client_id: string,
    client_name: string,
    auth: Pick<DemoClient, 'client_type' | 'client_secret' | 'token_endpoint_auth_method'>,
  ): DemoClient => ({
    client_id,
    client_name,
    ...auth,
    redirect_uris,
    post_logout_redirect_uris,
    grant_types: auth.client_type === 'public' ? code : [...code, 'client_credentials'],
    scope,
  });
  const secret = (clientId: string) => overrides.clientSecrets.get(clientId) || `${clientId}-secret`;
  return [
    webApp('demo-app', 'Demo app (client_secret_basic)', {
      client_type: 'confidential',
      client_secret: secret('demo-app'),
      token_endpoint_auth_method: 'client_secret_basic',
    }),
    webApp('demo-app-post', 'Demo app (client_secret_post)', {
      client_type: 'confidential',
      client_secret: secret('demo-app-post'),
      token_endpoint_auth_method: 'client_secret_post',
    }),
    webApp('public-app', 'Public app (PKCE S256, no secret)', {
      client_type: 'public',
      client_secret: null,
      token_endpoint_auth_method: 'none',
    }),
    {
      ...webApp('pkjwt-app', 'Demo app (private_key_jwt)', {
        client_type: 'confidential',
        client_secret: null,
        token_endpoint_auth_method: 'private_key_jwt',
      }),
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: pkjwt.public },
      private_jwks: { keys: pkjwt.private },
    },
    {
      client_id: 'machine-client',
      client_name: 'Machine client (client_credentials)',
      client_type: 'confidential',
      client_secret: secret('machine-client'),
      redirect_uris: [],
      post_logout_redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      scope: 'api:read api:write ssf scim',
    },
  ];
}
