import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { RunIndex } from '../../../projections/run-index.ts';
import { LiveSsfStreams } from '../../../projections/live-ssf-streams.ts';
import { StreamReaders } from '../../../services/streams/readers.ts';
import { MachineRegistry } from '../../../services/machines/registry.ts';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { enabledExtensions, type Config } from '../../config.ts';
import { withDataDirLock } from '../../keys/data-dir-lock.ts';
import { FileKeyRing } from '../../keys/file-key-ring.ts';
import { openEventStore } from '../../store/open.ts';
import { systemClock, type Clock } from '../../../services/clock.ts';
import type { SigningAlg } from '../../../services/keys.ts';
import { AgentRegistry } from '../../../projections/agent-registry.ts';
import { RevocationFeed } from '../../../projections/revocation-feed.ts';
import { RevokedAccessTokens } from '../../../projections/revoked-access-tokens.ts';
import { ProjectionRunner } from '../../../projections/runner.ts';
import type { Projection } from '../../../projections/types.ts';
import { AgentAuthService } from '../../../services/agentauth/service.ts';
import { agentAuthSettings } from '../../../services/agentauth/settings.ts';
import { AgentTokens } from '../../../services/agentauth/tokens.ts';
import { userCodeHasher } from '../../../services/agentauth/user-code.ts';
import { SecurityEvents } from '../../../services/agentauth/security-events.ts';
import { PollDelivery } from '../../../services/agentauth/poll-delivery.ts';
import { Catalog } from '../../../services/content/catalog.ts';
import { FlowRuns } from '../../../services/flows/runs.ts';
import { LookingGlass, ourIssuers } from '../../../services/lookingglass/service.ts';
import { Conformance } from '../../../services/conformance/service.ts';
import { defaultFlowRunners, flowRunnerOptions, targetFlowRunners } from '../../../services/flows/default-runners.ts';
import { GuardedHttp } from '../../outbound/guarded-http.ts';
import { CredentialStatus } from '../../../projections/credential-status.ts';
import { StatusIndexAllocator, statusSlotsOf } from '../../../services/status/allocator.ts';
import { StatusChecker } from '../../../services/status/check.ts';
import { StatusLists } from '../../../services/status/lists.ts';
import { mainOriginListSource } from '../../../services/status/source.ts';
import { statusTrustOf } from '../../../services/status/trust.ts';
import { targetDeps } from '../../outbound/guarded-transport.ts';
import { fileURLToPath } from 'node:url';
import { installErrorHandling, refuseWhileClosing, sharedServerOptions } from '../error-handling.ts';
import type { OAuthError } from '../../../services/errors.ts';
import { installRateLimit } from '../rate-limit.ts';
import { installDiscoveryCors } from '../discovery-cors.ts';
import { loadIssuerPki } from '../../issuer/pki-file.ts';
import { ISSUING_COUNTRY, issuerSettings } from '../../../services/issuer/settings.ts';
import { credentialTrustOf, issuerKeys } from '../../../services/issuer/trust.ts';
import { SseHub, type SseLimits } from '../sse.ts';
import { installPageHeaders } from '../pages/links.ts';
import { sendPage } from '../pages/respond.ts';
import { errorPage, notFoundPage } from '../pages/error-pages.ts';
import type { MainContext, RoutePlugin } from './context.ts';
import { MAIN_KEYS, MAIN_PROJECTIONS, MAIN_ROUTES } from './routes.ts';
import { nodeFiles } from '../../files/node-files.ts';

export interface MainOrigin {
  app: FastifyInstance;
  /** Every registered route as `METHOD /path/{param}` (HEAD twins left out), for the contract check. */
  routes: string[];
  ctx: MainContext;
  /** Stops accepting requests, lets in-flight ones finish, then closes the event log. */
  close(): Promise<void>;
}

export interface MainOptions {
  clock?: Clock;
  /** How flow runs wait between steps (e.g. the 5 s claim poll interval); real time by default. */
  wait?: (ms: number) => Promise<void>;
  /** Fastify logger; off by default in tests. */
  logger?: boolean;
  /** Bounds of the SSE streams (tests lower them). */
  sseLimits?: SseLimits;
  /** How long a client may take to send a whole request (tests shorten it). */
  requestTimeoutMs?: number;
  /** The route plugins, in order (MAIN_ROUTES); none depends on state another plugin left in the context. */
  routes?: readonly RoutePlugin[];
}

const JSON_BODY_LIMIT = 64 * 1024;
const ROOT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const CONTENT_DIR = join(ROOT_DIR, 'content');

/** Pages answer 404 with HTML; everything else with JSON. */
const isPage = (path: string) =>
  !/^\/(api|agentauth\/(?!claim)|oauth2\/(?!authorize)|oidc\/(?!authorize|logout)|oid4vci|oid4vp|mcp|ssf\/|\.well-known|spiffe|wallet-harness)/.test(
    path,
  ) && !/\.(json|txt|md|xml)$/.test(path);

/** Every read model the main origin keeps in its log's database. */
export function createMainProjections() {
  const registry = new AgentRegistry();
  const feed = new RevocationFeed();
  const revokedAccessTokens = new RevokedAccessTokens();
  const runIndex = new RunIndex();
  const credentialStatus = new CredentialStatus();
  const liveSsfStreams = new LiveSsfStreams();
  const all: Projection[] = [
    registry,
    feed,
    revokedAccessTokens,
    runIndex,
    credentialStatus,
    liveSsfStreams,
    ...MAIN_PROJECTIONS.map((make) => make()),
  ];
  return { registry, feed, revokedAccessTokens, runIndex, credentialStatus, liveSsfStreams, all };
}

export async function createMainOrigin(config: Config, options: MainOptions = {}): Promise<MainOrigin> {
  const clock = options.clock ?? systemClock;
  mkdirSync(config.dataDir, { recursive: true });
  const keyList: Array<[string, SigningAlg]> = [['agentauth', 'ES256'], ...MAIN_KEYS];
  // Instances sharing DATA_DIR provision keys and certificates once: the lock spans everything that creates them.
  return withDataDirLock(config.dataDir, () => assemble(config, options, clock, keyList));
}

async function assemble(
  config: Config,
  options: MainOptions,
  clock: Clock,
  keyList: Array<[string, SigningAlg]>,
): Promise<MainOrigin> {
  const keys = await FileKeyRing.open(config.keysFile, keyList);
  const stopWatchingKeys = keys.watch();
  const { log, projections: projectionStore, rateLimits } = await openEventStore(config);

  const {
    registry,
    feed,
    revokedAccessTokens,
    runIndex,
    credentialStatus,
    liveSsfStreams,
    all: projections,
  } = createMainProjections();
  const runner = new ProjectionRunner(projectionStore, projections);
  await runner.start();

  const settings = agentAuthSettings(config.baseUrl, config.vendor);
  const agentAuth = new AgentAuthService(
    log,
    registry,
    new AgentTokens(keys, settings),
    settings,
    clock,
    userCodeHasher(keys.secret('user-code')),
  );
  const securityEvents = new SecurityEvents(feed, keys, settings);
  const catalog = Catalog.load(nodeFiles, CONTENT_DIR).servedWith(enabledExtensions(config));
  const runners = defaultFlowRunners(
    settings.claimGrantType,
    flowRunnerOptions(config.spiffe.enabled, config.showcaseBaseUrl),
  );
  const wait = options.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // The server's own calls during flow runs carry this secret and are never rate limited; it comes from
  // the key ring, so a run's call that a load balancer sends to another instance is recognised there too.
  const internal = {
    header: 'x-portico-internal',
    value: Buffer.from(keys.secret('internal-caller')).toString('base64url'),
  };

  // The issuer's signing material is provisioned here, under the data-dir lock, and handed to every part that needs it.
  const issuerSettingsOfOrigin = issuerSettings(config.baseUrl, {
    dpopNonceRequired: config.dpopNonceRequired,
    ...config.oid4vci,
  });
  const issuerPki = await loadIssuerPki(config.dataDir, issuerSettingsOfOrigin.issuer, ISSUING_COUNTRY, clock.now());
  const publishedIssuerKeys = await issuerKeys(keys, issuerPki);

  // Everything the main origin fetches from a URL a caller chose goes through this guard (docs/flows.md).
  // The deployment's own origin is always a target (a flow run against itself, as SSF push does).
  const outbound = new GuardedHttp({
    trustedOrigins: new Set([new URL(config.baseUrl).origin]),
    allowExternal: true,
    allowLoopback: config.outboundAllowLoopback,
  });
  const credentialTrust = credentialTrustOf(issuerSettingsOfOrigin, issuerPki, keys, publishedIssuerKeys);
  const statusLists = new StatusLists(
    credentialStatus,
    keys,
    issuerSettingsOfOrigin.issuer,
    clock,
    issuerPki.documentSigner,
  );
  const statusSource = mainOriginListSource(issuerSettingsOfOrigin.issuer, statusLists, outbound);
  const statusChecker = new StatusChecker(
    statusSource,
    statusTrustOf(credentialTrust, () => Math.floor(clock.now() / 1000)),
    clock,
  );
  const ctx: MainContext = {
    config,
    internalCaller: internal,
    clock,
    issuer: { settings: issuerSettingsOfOrigin, pki: issuerPki, keys: publishedIssuerKeys },
    credentialTrust,
    outbound,
    credentialStatus: {
      lists: statusLists,
      slots: statusSlotsOf(new StatusIndexAllocator(log, clock), statusLists),
      source: statusSource,
      checker: statusChecker,
    },
    log,
    keys,
    projections: runner,
    registry,
    revokedAccessTokens,
    runIndex,
    liveSsfStreams,
    agentAuth,
    securityEvents,
    pollDelivery: new PollDelivery(log, securityEvents, clock),
    catalog,
    flowRuns: new FlowRuns(log, catalog, runners, {
      base: config.baseUrl,
      clock,
      wait,
      internal,
      transport: fetch,
      targets: targetDeps(outbound, targetFlowRunners()),
      fingerprintKey: keys.secret('fingerprint'),
    }),
    lookingGlass: new LookingGlass(keys, clock, ourIssuers(config.baseUrl), statusChecker),
    sse: new SseHub(options.sseLimits),
    conformance: new Conformance(
      nodeFiles,
      join(ROOT_DIR, 'conformance/registry.yaml'),
      config.conformanceReport || join(ROOT_DIR, 'conformance/report.json'),
      CONTENT_DIR,
      { commit: config.commit, repositoryUrl: config.repositoryUrl },
      enabledExtensions(config),
    ),
    originMetadata: {},
    apiEndpoints: {
      health: '/health',
      agent_registration: '/agentauth/identity',
      agent_claim: '/agentauth/identity/claim',
      agent_token: '/agentauth/token',
      agent_revocation: '/agentauth/revoke',
      agent_events: '/agentauth/events',
      agent_auth_guide: '/auth.md',
      authorization_server_metadata: '/.well-known/oauth-authorization-server',
    },
    health: {},
    streamReaders: new StreamReaders(),
    machines: new MachineRegistry(),
    onClose: [],
  };

  const pages = {
    isPage,
    sendNotFoundPage: (request: FastifyRequest, reply: FastifyReply) =>
      sendPage(request, reply, notFoundPage(request.url.split('?')[0]), 404),
    sendErrorPage: (request: FastifyRequest, reply: FastifyReply, error: OAuthError) =>
      sendPage(request, reply, errorPage(error), error.status),
  };
  await ctx.flowRuns.interruptUnfinished();
  const app = Fastify({
    ...sharedServerOptions(pages, options.requestTimeoutMs),
    logger: options.logger ?? false,
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy: config.trustProxy === false ? false : config.trustProxy,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });
  const draining = refuseWhileClosing(app);
  installErrorHandling(app, pages);
  const routes: string[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && !route.url.includes('*'))
        // `::` escapes a literal colon (`/ssf/subjects::add` is `/ssf/subjects:add`); `:name` is a parameter.
        routes.push(`${method} ${route.url.replace(/::|:(\w+)/g, (match, name) => (name ? `{${name}}` : ':'))}`);
    }
  });
  installPageHeaders(app, config.walletUrl);
  await app.register(formbody, { bodyLimit: JSON_BODY_LIMIT });
  // Collects every route's schema from here on: the OpenAPI contract is generated from what validates.
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Portico gateway',
        version: config.version,
        description: 'The main origin of the Portico identity-protocol sandbox.',
      },
      servers: [{ url: config.baseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  await installRateLimit(app, config.rateLimitPerMinute, { internal, store: rateLimits });
  const discoveryCors = installDiscoveryCors(app);
  for (const plugin of options.routes ?? MAIN_ROUTES) await plugin(app, ctx);
  discoveryCors.addPreflights();

  let closed = false;
  return {
    app,
    routes,
    ctx,
    async close() {
      if (closed) return;
      closed = true;
      draining.close();
      ctx.sse.closeAll();
      for (const hook of ctx.onClose) await hook();
      await outbound.close();
      await app.close();
      await runner.stop();
      stopWatchingKeys();
      await log.close();
    },
  };
}
