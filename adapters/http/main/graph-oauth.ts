import type { Config } from '../../config.ts';
import type { Clock } from '../../../services/clock.ts';
import type { EventLog } from '../../../services/event-log.ts';
import type { KeyRing } from '../../../services/keys.ts';
import type { RevokedAccessTokens } from '../../../projections/revoked-access-tokens.ts';
import { Authorization } from '../../../services/oauth/authorization.ts';
import { demoClients, type DemoClient } from '../../../services/oauth/demo-clients.ts';
import { demoUsers, type DemoUser } from '../../../services/oauth/demo-users.ts';
import { OAuthDeps } from '../../../services/oauth/deps.ts';
import { TokenIntrospection } from '../../../services/oauth/introspection.ts';
import { issuerProfiles, type IssuerProfile } from '../../../services/oauth/issuers.ts';
import { OAuthTokenServer } from '../../../services/oauth/token/oauth-server.ts';
import {
  oauthResourceGuard,
  userInfoGuard,
  type OAuthResourceOptions,
} from '../../../services/oauth/oauth-resource.ts';
import type { ResourceGuard } from '../../../services/oauth/resource-guard.ts';
import type { AccessTokenClaims } from '../../../services/oauth/tokens.ts';
import { ClientMetadataDocuments } from '../../../services/oauth/clients/metadata-document.ts';
import { documentGuard } from '../../outbound/document-guard.ts';
import type { SignInSessions } from '../../../services/sessions/sign-in-sessions.ts';
import type { GuardedHttp } from '../../outbound/guarded-http.ts';

/** One authorization server of the origin (`/oidc`, the OpenID Provider, or `/oauth2`) and its services. */
interface OAuthServer {
  profile: IssuerProfile;
  authorization: Authorization;
  tokenEndpoint: OAuthTokenServer;
  introspection: TokenIntrospection;
}

/** The OAuth 2.0 authorization server and the OpenID Provider of decisions section 3, as services. */
export interface OAuthPart {
  deps: OAuthDeps;
  /** The one sign-in session of the origin (the OpenID Provider's and the SAML IdP's). */
  sessions: SignInSessions;
  clients: DemoClient[];
  users: DemoUser[];
  profiles: { op: IssuerProfile; as: IssuerProfile };
  servers: OAuthServer[];
  /** DYNAMIC_CLIENTS (decisions §11): `{base}/oauth2/register`, absent when off. */
  registrationEndpoint: string | undefined;
  /** Client ID Metadata Documents and client `jwks_uri`s are fetched through this guard. */
  documentFetches: GuardedHttp;
  /**
   * The guard of a resource protected by `{base}/oauth2`'s access tokens (services/oauth/resource-guard.ts):
   * its RFC 9728 document, the audience its tokens carry (RFC 8707; the demo resource's when absent), its scope.
   */
  guard(options?: OAuthResourceOptions): ResourceGuard<AccessTokenClaims, string>;
  /** `/oauth2/resource`, the demo resource. */
  demoResource: ResourceGuard<AccessTokenClaims, string>;
  /** `/oidc/userinfo` (the OpenID Provider's tokens). */
  userInfo: ResourceGuard<AccessTokenClaims, DemoUser>;
}

export function buildOAuth(
  config: Config,
  shared: {
    log: EventLog;
    keys: KeyRing;
    clock: Clock;
    revokedAccessTokens: RevokedAccessTokens;
    /** The sign-in session the OpenID Provider shares with the SAML IdP; the plain AS keeps none. */
    sessions: SignInSessions;
  },
): OAuthPart {
  const base = config.baseUrl;
  const { keys, clock } = shared;
  const clients = demoClients(base, config.demo, {
    public: keys.jwks('published:pkjwt-app').keys,
    private: keys.publishedPrivateJwks('published:pkjwt-app').keys,
  });
  const users = demoUsers(config.demo);
  const dynamicClients = config.extensions.dynamicClients;
  const documentFetches = documentGuard(new URL(base).origin, config.outboundAllowLoopback);
  const deps = new OAuthDeps(shared.log, {
    keys,
    clock,
    clients,
    users,
    revoked: shared.revokedAccessTokens,
    dpopNonceRequired: config.dpopNonceRequired,
    registrationUri: (clientId) => `${base}/oauth2/register/${encodeURIComponent(clientId)}`,
    ...(dynamicClients ? { documents: new ClientMetadataDocuments(documentFetches, clock) } : {}),
    outbound: documentFetches,
  });
  const profiles = issuerProfiles(base);
  const servers = [profiles.op, profiles.as].map((profile) => {
    const tokenEndpoint = new OAuthTokenServer(deps, profile);
    const signIn = profile.openid
      ? { sessions: shared.sessions, verifyIdTokenHint: (t: string) => tokenEndpoint.tokens.verifyIdTokenHint(t) }
      : undefined;
    return {
      profile,
      authorization: new Authorization(deps, profile, signIn),
      tokenEndpoint,
      introspection: new TokenIntrospection(deps, tokenEndpoint),
    };
  });
  const [op, as] = servers;
  const guard = (options?: OAuthResourceOptions) => oauthResourceGuard(deps, as.tokenEndpoint.tokens, options);
  return {
    deps,
    sessions: shared.sessions,
    clients,
    users,
    profiles,
    servers,
    registrationEndpoint: dynamicClients ? `${base}/oauth2/register` : undefined,
    documentFetches,
    guard,
    demoResource: guard({ resourceMetadata: `${base}/.well-known/oauth-protected-resource/oauth2/resource` }),
    userInfo: userInfoGuard(
      deps,
      op.tokenEndpoint.tokens,
      `${base}/.well-known/oauth-protected-resource/oidc/userinfo`,
    ),
  };
}
