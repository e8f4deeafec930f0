import type { LiveSsfStreams } from '../../../projections/live-ssf-streams.ts';
import type { InternalCaller } from '../rate-limit.ts';
import type { FastifyInstance } from 'fastify';
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

/** Everything the main origin's route plugins are given; built once in `compose.ts`. */
export interface MainContext {
  config: Config;
  /** The secret header of the server's own calls during flow runs (adapters/http/rate-limit.ts). */
  internalCaller: InternalCaller;
  clock: Clock;
  /** The event log, by its interface: SQLite today, another store behind the same contract. */
  log: EventLog;
  keys: KeyRing;
  projections: ProjectionRunner;
  registry: AgentRegistry;
  revokedAccessTokens: RevokedAccessTokens;
  /** Every flow run, newest first (`GET /api/runs`, `/runs`). */
  runIndex: RunIndex;
  /** The live Shared Signals streams, by client (projections/live-ssf-streams.ts). */
  liveSsfStreams: LiveSsfStreams;
  agentAuth: AgentAuthService;
  securityEvents: SecurityEvents;
  pollDelivery: PollDelivery;
  catalog: Catalog;
  flowRuns: FlowRuns;
  lookingGlass: LookingGlass;
  conformance: Conformance;
  /** Every Server-Sent Event stream of the origin (bounded, heartbeats, released on close). */
  sse: SseHub;
  /** The palette index, once the palette part has opened it. */
  palette?: import('../../palette/sqlite-palette.ts').Palette;
  /** Members other servers add to the origin's authorization-server metadata (e.g. the OP's endpoints). */
  originMetadata: Record<string, unknown>;
  /** Named entries of `GET /api`'s `endpoints` map. */
  apiEndpoints: Record<string, string>;
  /** Members of `GET /health`, each computed per request. */
  health: Record<string, () => unknown>;
  /** Conformance pages that may be indexed (sitemap, llms.txt); set by the conformance part when present. */
  indexableConformancePages?: () => Array<{ path: string; title: string }>;
  /** The OID4VCI issuer's settings, its PKI (IACA, document signer, attester, request encryption) and published keys. */
  issuer: {
    settings: import('../../../services/issuer/settings.ts').IssuerSettings;
    pki: import('../../../services/issuer/settings.ts').IssuerPki;
    keys: import('../../../services/issuer/trust.ts').IssuerKeys;
  };
  /** Whom the OID4VP verifier trusts for credentials: what this origin's issuer signs. */
  credentialTrust: import('../../../services/verifier/settings.ts').CredentialTrust;
  /** Credential status (docs/status.md): the issuer's lists, its slots, and lists by URL with their check. */
  credentialStatus: {
    lists: import('../../../services/status/lists.ts').StatusLists;
    slots: import('../../../services/issuer/core.ts').StatusSlots;
    /** Our issuer's lists read in process; any other origin through the outbound guard. */
    source: import('../../../services/status/source.ts').StatusListSource;
    /** The verifier's and the looking glass's check, trusting what our issuer signs. */
    checker: import('../../../services/status/check.ts').StatusChecker;
  };
  /** A resource protected by `{base}/oauth2`'s access tokens; set by the OAuth part. */
  oauthResource?: (
    resourceMetadata?: string,
    /** RFC 8707: the audience its tokens must carry; the demo resource's when absent. */
    audience?: string,
  ) => import('../../../services/oauth/protected-resources.ts').ProtectedResource;
  /** Everything the main origin fetches from a URL a caller chose goes through this guard. */
  outbound: import('../../outbound/guarded-http.ts').GuardedHttp;
  /** Shared Signals readers for other parts (MCP); set by the SSF part. */
  ssf?: {
    receiver(id: string): Promise<object>;
    stream(id: string, authorization: string | undefined): Promise<object>;
  };
  /** Every state machine as data (`/api/machines`). */
  machines: MachineRegistry;
  /** Who may read (export, step through) each kind of stream; each part registers its kind's rule. */
  streamReaders: StreamReaders;
  /** Called, in order, on shutdown before the event log closes. */
  onClose: Array<() => Promise<void> | void>;
}

export type RoutePlugin = (app: FastifyInstance, ctx: MainContext) => Promise<void> | void;
