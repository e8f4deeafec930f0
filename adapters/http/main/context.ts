import type { FastifyInstance } from 'fastify';
import type { LiveSsfStreams } from '../../../projections/live-ssf-streams.ts';
import type { InternalCaller } from '../rate-limit.ts';
import type { Config } from '../../config.ts';
import type { EventLog } from '../../../services/event-log.ts';
import type { Clock } from '../../../services/clock.ts';
import type { KeyRing } from '../../../services/keys.ts';
import type { ProjectionRunner } from '../../../projections/runner.ts';
import type { AgentRegistry } from '../../../projections/agent-registry.ts';
import type { RevokedAccessTokens } from '../../../projections/revoked-access-tokens.ts';
import type { RunIndex } from '../../../projections/run-index.ts';
import type { AgentAuthService } from '../../../services/agentauth/service.ts';
import type { SecurityEvents } from '../../../services/agentauth/security-events.ts';
import type { PollDelivery } from '../../../services/agentauth/poll-delivery.ts';
import type { Catalog } from '../../../services/content/catalog.ts';
import type { FlowRuns } from '../../../services/flows/runs.ts';
import type { LookingGlass } from '../../../services/lookingglass/service.ts';
import type { Conformance } from '../../../services/conformance/service.ts';
import type { SseHub } from '../sse.ts';
import type { StreamReaders } from '../../../services/streams/readers.ts';
import type { MachineRegistry } from '../../../services/machines/registry.ts';
import type { Palette } from '../../palette/sqlite-palette.ts';
import type { GuardedHttp } from '../../outbound/guarded-http.ts';
import type { IssuerKeys } from '../../../services/issuer/trust.ts';
import type { IssuerPki, IssuerSettings } from '../../../services/issuer/settings.ts';
import type { IssuerService } from '../../../services/issuer/service.ts';
import type { IssuerAuthorization } from '../../../services/issuer/authorization.ts';
import type { StatusSlots } from '../../../services/issuer/core.ts';
import type { StatusLists } from '../../../services/status/lists.ts';
import type { StatusListSource } from '../../../services/status/source.ts';
import type { StatusChecker } from '../../../services/status/check.ts';
import type { CredentialTrust, VerifierPki, VerifierSettings } from '../../../services/verifier/settings.ts';
import type { VerifierService } from '../../../services/verifier/service.ts';
import type { TokenRuns } from '../../../services/mcp/token-runs.ts';
import type { ResourceGuard } from '../../../services/oauth/resource-guard.ts';
import type { AccessTokenClaims } from '../../../services/oauth/tokens.ts';
import type { OAuthPart } from './graph-oauth.ts';
import type { SsfPart } from './graph-ssf.ts';
import type { ScimPart } from './graph-scim.ts';
import type { SamlPart } from './graph-saml.ts';

/**
 * The main origin's service graph: every service, runtime, worker and read model, built once by the
 * composition root (`compose.ts` with its `graph-*.ts` builders) before any route exists. Route plugins
 * read it and register routes; none writes to it (it is frozen), so their order does not matter.
 */
export interface MainContext {
  readonly config: Config;
  /** The secret header of the server's own calls during flow runs (adapters/http/rate-limit.ts). */
  readonly internalCaller: InternalCaller;
  readonly clock: Clock;
  /** The event log, by its interface: SQLite today, another store behind the same contract. */
  readonly log: EventLog;
  readonly keys: KeyRing;
  readonly projections: ProjectionRunner;
  readonly registry: AgentRegistry;
  readonly revokedAccessTokens: RevokedAccessTokens;
  /** Every flow run, newest first (`GET /api/runs`, `/runs`). */
  readonly runIndex: RunIndex;
  /** The live Shared Signals streams, by client (projections/live-ssf-streams.ts). */
  readonly liveSsfStreams: LiveSsfStreams;
  readonly agentAuth: AgentAuthService;
  readonly securityEvents: SecurityEvents;
  readonly pollDelivery: PollDelivery;
  readonly catalog: Catalog;
  readonly flowRuns: FlowRuns;
  readonly lookingGlass: LookingGlass;
  readonly conformance: Conformance;
  /** Every Server-Sent Event stream of the origin (bounded, heartbeats, released on close). */
  readonly sse: SseHub;
  /** The palette index; absent when it could not be opened outside production. */
  readonly palette: Palette | undefined;
  /** The OAuth 2.0 authorization server and OpenID Provider, and the resource guard of their tokens. */
  readonly oauth: OAuthPart;
  /** The Shared Signals transmitter and receivers. */
  readonly ssf: SsfPart;
  /** The SCIM 2.0 service provider at `{base}/scim/v2` (docs/scim.md). */
  readonly scim: ScimPart;
  /** SAML 2.0: the IdP at `{base}/saml/idp`, our SP at `{base}/saml/sp` (docs/saml.md). */
  readonly saml: SamlPart;
  /** The members of the origin's authorization-server metadata (`/.well-known/oauth-authorization-server`). */
  readonly originMetadata: Readonly<Record<string, unknown>>;
  /** Named entries of `GET /api`'s `endpoints` map (`api-endpoints.ts`). */
  readonly apiEndpoints: Readonly<Record<string, string>>;
  /** Members of `GET /health`, each computed per request. */
  readonly health: Readonly<Record<string, () => unknown>>;
  /** The OID4VCI issuer: settings, PKI (IACA, document signer, attester, request encryption), published keys. */
  readonly issuer: { settings: IssuerSettings; pki: IssuerPki; keys: IssuerKeys };
  readonly issuerService: IssuerService;
  readonly issuerAuthorization: IssuerAuthorization;
  /** Whom the OID4VP verifier trusts for credentials: what this origin's issuer signs. */
  readonly credentialTrust: CredentialTrust;
  readonly verifier: { service: VerifierService; settings: VerifierSettings; pki: VerifierPki };
  /** Credential status (docs/status.md): the issuer's lists, its slots, and lists by URL with their check. */
  readonly credentialStatus: {
    lists: StatusLists;
    slots: StatusSlots;
    /** Our issuer's lists read in process; any other origin through the outbound guard. */
    source: StatusListSource;
    /** The verifier's and the looking glass's check, trusting what our issuer signs. */
    checker: StatusChecker;
  };
  /**
   * The protected MCP endpoint's parts, only with MCP_USER_ENDPOINT=true: its resource guard (audience
   * `{base}/mcp/user`, scope mcp:read) and the runs each token started.
   */
  readonly mcpUser: { readonly guard: ResourceGuard<AccessTokenClaims, string>; readonly runs: TokenRuns } | undefined;
  /** Everything the main origin fetches from a URL a caller chose goes through this guard. */
  readonly outbound: GuardedHttp;
  /** Every state machine as data (`/api/machines`). */
  readonly machines: MachineRegistry;
  /** Who may read (export, step through) each kind of stream; the composition root registers each kind's rule. */
  readonly streamReaders: StreamReaders;
  /** Called, in order, on shutdown before the event log closes; only the composition root adds to it. */
  readonly onClose: Array<() => Promise<void> | void>;
}

/** A route plugin registers routes (and hooks of its own routes) from the graph, and nothing else. */
export type RoutePlugin = (app: FastifyInstance, ctx: MainContext) => Promise<void> | void;
