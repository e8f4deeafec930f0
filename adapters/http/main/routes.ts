import type { SigningAlg } from '../../../services/keys.ts';
import type { Projection } from '../../../projections/types.ts';
import { agentAuthApiRoutes } from '../agentauth/api-routes.ts';
import { claimPageRoutes } from '../agentauth/claim-page.ts';
import { agentAuthEventRoutes } from '../agentauth/event-routes.ts';
import { agentAuthMetadataRoutes } from '../agentauth/metadata-routes.ts';
import type { RoutePlugin } from './context.ts';
import { coreRoutes } from './core-routes.ts';
import { oauthRoutes } from '../oauth/plugin.ts';
import { catalogRoutes } from '../catalog/plugin.ts';
import { lookingGlassRoutes } from '../lookingglass/plugin.ts';
import { mcpRoutes } from '../mcp/plugin.ts';
import { discoveryRoutes } from '../discovery/plugin.ts';
import { pageRoutes } from '../pages/routes.ts';
import { assetRoutes } from '../pages/assets.ts';
import { conformanceRoutes } from '../conformance/plugin.ts';
import { paletteRoutes } from '../palette/plugin.ts';
import { walletForwardRoutes } from './wallet-forward.ts';
import { issuerRoutes } from '../issuer/plugin.ts';
import { verifierRoutes } from '../verifier/plugin.ts';
import { streamRoutes } from '../streams/plugin.ts';
import { machineRoutes } from '../machines/plugin.ts';
import { ssfRoutes } from '../ssf/plugin.ts';
import { scimRoutes } from '../scim/plugin.ts';
import { samlRoutes } from '../saml/plugin.ts';

/**
 * The main origin's route plugins. A new bounded context builds its services in the composition root
 * (`graph.ts`), adds its route plugin here, and its signing keys and projections below. Each plugin only
 * reads the frozen graph, so the order is free (test/integration/main/plugin-order.test.ts).
 */
export const MAIN_ROUTES: RoutePlugin[] = [
  coreRoutes,
  agentAuthApiRoutes,
  agentAuthEventRoutes,
  claimPageRoutes,
  oauthRoutes,
  ssfRoutes,
  scimRoutes,
  samlRoutes,
  catalogRoutes,
  streamRoutes,
  machineRoutes,
  lookingGlassRoutes,
  mcpRoutes,
  pageRoutes,
  assetRoutes,
  conformanceRoutes,
  paletteRoutes,
  issuerRoutes,
  verifierRoutes,
  walletForwardRoutes,
  discoveryRoutes,
  agentAuthMetadataRoutes,
];

/** Signing keys provisioned at start, besides agentauth's ES256 key: [key set, algorithm]. */
export const MAIN_KEYS: Array<[string, SigningAlg]> = [
  ['oidc', 'ES256'],
  ['oidc', 'RS256'],
  ['oauth2', 'ES256'],
  // The OID4VCI issuer (and its authorization server): access tokens and SD-JWT VCs.
  ['oid4vci', 'ES256'],
  // The OID4VP verifier: request objects (did:jwk, attested key) and its verifier attestation issuer.
  ['oid4vp', 'ES256'],
  ['oid4vp-attestation', 'ES256'],
  // The private_key_jwt demo client's keys, published with its record.
  ['published:pkjwt-app', 'ES256'],
  ['published:pkjwt-app', 'RS256'],
  ['published:pkjwt-app', 'EdDSA'],
];

/** Projections besides the agent registry and revocation feed. */
export const MAIN_PROJECTIONS: Array<() => Projection> = [];
