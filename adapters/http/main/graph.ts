import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enabledExtensions, type Config } from '../../config.ts';
import { FileKeyRing } from '../../keys/file-key-ring.ts';
import { openEventStore } from '../../store/open.ts';
import { nodeFiles } from '../../files/node-files.ts';
import { openPalette } from '../../palette/open.ts';
import { GuardedHttp } from '../../outbound/guarded-http.ts';
import { targetDeps } from '../../outbound/guarded-transport.ts';
import type { Clock } from '../../../services/clock.ts';
import type { SigningAlg } from '../../../services/keys.ts';
import { ProjectionRunner } from '../../../projections/runner.ts';
import { AgentAuthService } from '../../../services/agentauth/service.ts';
import { agentAuthSettings } from '../../../services/agentauth/settings.ts';
import { AgentTokens } from '../../../services/agentauth/tokens.ts';
import { userCodeHasher } from '../../../services/agentauth/user-code.ts';
import { SecurityEvents } from '../../../services/agentauth/security-events.ts';
import { PollDelivery } from '../../../services/agentauth/poll-delivery.ts';
import { agentStreamReader } from '../../../services/agentauth/stream-reader.ts';
import { Catalog } from '../../../services/content/catalog.ts';
import { Conformance } from '../../../services/conformance/service.ts';
import { defaultFlowRunners, flowRunnerOptions, targetFlowRunners } from '../../../services/flows/default-runners.ts';
import { FlowRuns } from '../../../services/flows/runs.ts';
import { LookingGlass, ourIssuers } from '../../../services/lookingglass/service.ts';
import { MachineRegistry } from '../../../services/machines/registry.ts';
import { TokenRuns } from '../../../services/mcp/token-runs.ts';
import { ClientPlaces } from '../../../services/places/client-places.ts';
import { mcpServerConfig } from '../../../services/mcp/config.ts';
import { MCP_READ } from '../../../services/oauth/scopes.ts';
import { StreamReaders } from '../../../services/streams/readers.ts';
import { presentationStreamReader } from '../../../services/verifier/stream-reader.ts';
import { runTokensOf } from '../run-tokens.ts';
import { SseHub, type SseLimits } from '../sse.ts';
import { authorizationServerMetadata } from '../oauth/metadata.ts';
import { apiEndpoints } from './api-endpoints.ts';
import type { MainContext } from './context.ts';
import { buildCredentials } from './graph-credentials.ts';
import { buildOAuth, type OAuthPart } from './graph-oauth.ts';
import { buildSsf } from './graph-ssf.ts';
import { buildScim } from './graph-scim.ts';
import { buildSaml } from './graph-saml.ts';
import { SignInSessions } from '../../../services/sessions/sign-in-sessions.ts';
import { MAIN_KEYS } from './routes.ts';
import { createMainProjections } from './projections.ts';

const ROOT_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const CONTENT_DIR = join(ROOT_DIR, 'content');
/** Step mode: how often paused runs are looked at (a run left paused for 10 minutes ends as expired). */
const IDLE_SWEEP_MS = 30_000;

export interface GraphOptions {
  clock: Clock;
  /** How flow runs wait between steps (e.g. the 5 s claim poll interval). */
  wait: (ms: number) => Promise<void>;
  sseLimits?: SseLimits;
}

/** The graph and what only the composition root holds: the rate-limit store and the workers' switch. */
export interface MainGraph {
  ctx: MainContext;
  rateLimits: Awaited<ReturnType<typeof openEventStore>>['rateLimits'];
  /** Starts the workers (automatic signals, push delivery, the step-mode sweep). */
  startWorkers(): Promise<void>;
  /** Last of all at shutdown: the read models, the key file's watch, the event log. */
  closeStores(): Promise<void>;
}

/**
 * Builds the main origin's whole service graph once (docs/architecture.md, "The composition root"):
 * keys, the event log and its read models, every service and runtime, the workers, the stream readers
 * and the tables of `/api` and the origin metadata. Runs under the data-dir lock.
 */
export async function buildMainGraph(config: Config, options: GraphOptions): Promise<MainGraph> {
  const { clock, wait } = options;
  const onClose: MainContext['onClose'] = [];
  const keyList: Array<[string, SigningAlg]> = [['agentauth', 'ES256'], ...MAIN_KEYS];
  const keys = await FileKeyRing.open(config.keysFile, keyList);
  const stopWatchingKeys = keys.watch();
  const { log, projections: projectionStore, rateLimits, liveness } = await openEventStore(config);
  const read = createMainProjections();
  const runner = new ProjectionRunner(projectionStore, read.all);
  await runner.start();

  const settings = agentAuthSettings(config.baseUrl, config.vendor);
  const agentAuth = new AgentAuthService(
    log,
    read.registry,
    new AgentTokens(keys, settings),
    settings,
    clock,
    userCodeHasher(keys.secret('user-code')),
  );
  const securityEvents = new SecurityEvents(read.feed, keys, settings);
  const catalog = Catalog.load(nodeFiles, CONTENT_DIR).servedWith(enabledExtensions(config));
  // The server's own calls during flow runs carry this secret and are never rate limited; it comes from
  // the key ring, so a run's call that a load balancer sends to another instance is recognised there too.
  const internalCaller = {
    header: 'x-portico-internal',
    value: Buffer.from(keys.secret('internal-caller')).toString('base64url'),
  };
  // Everything the main origin fetches from a URL a caller chose goes through this guard (docs/flows.md).
  // The deployment's own origin is always a target (a flow run against itself, as SSF push does).
  const outbound = new GuardedHttp({
    trustedOrigins: new Set([new URL(config.baseUrl).origin]),
    allowExternal: true,
    allowLoopback: config.outboundAllowLoopback,
  });
  const credentials = await buildCredentials(config, {
    log,
    keys,
    clock,
    outbound,
    credentialStatus: read.credentialStatus,
  });
  const lookingGlass = new LookingGlass(keys, clock, ourIssuers(config.baseUrl), credentials.credentialStatus.checker);
  // HAIP SD-JWT VCs and signed metadata carry the document signer's x5c, which chains to the IACA; request
  // objects of this verifier chain to its CA: the looking glass may call both verified.
  lookingGlass.trustCertificateAuthority(credentials.issuer.pki.iaca.pem);
  lookingGlass.trustCertificateAuthority(credentials.verifier.pki.ca.pem);

  const sessions = new SignInSessions(log, clock);
  const oauth = buildOAuth(config, { log, keys, clock, revokedAccessTokens: read.revokedAccessTokens, sessions });
  const saml = buildSaml(config, { log, clock, keys, oauth });
  const samlLab = async () => {
    const { idp } = await saml.services();
    return { entityId: idp.identity.entityId, signing: idp.identity.signing };
  };
  // Per-caller limits decided in the log (SSF streams per client, targeted runs per address).
  const places = new ClientPlaces(log, clock, keys.secret('fingerprint'));
  const flowRuns = new FlowRuns(
    log,
    catalog,
    defaultFlowRunners(
      settings.claimGrantType,
      flowRunnerOptions(config.spiffe.enabled, config.showcaseBaseUrl, samlLab),
    ),
    {
      base: config.baseUrl,
      clock,
      wait,
      internal: internalCaller,
      transport: fetch,
      targets: targetDeps(outbound, targetFlowRunners(samlLab)),
      fingerprintKey: keys.secret('fingerprint'),
      liveness,
      places,
    },
  );
  const streamReaders = new StreamReaders();
  const ssf = buildSsf(config, {
    log,
    keys,
    clock,
    live: read.liveSsfStreams,
    places,
    ...(rateLimits ? { rateLimits } : {}),
    statusLists: credentials.credentialStatus.lists,
    outbound,
    guard: oauth.guard({ scope: 'ssf', say: { missing: 'An access token with scope ssf is required' } }),
    streamReaders,
  });
  const scim = buildScim(config, {
    log,
    clock,
    resources: read.scimResources,
    oauth,
    streamReaders,
    agents: { registry: read.registry, service: agentAuth },
  });
  const palette = openPalette(config, (p, f) => flowRuns.executable(p, f));
  const mcpUser = config.extensions.mcpUserEndpoint;

  // Who may read (export, step through) each kind of stream besides the SSF ones (graph-ssf.ts).
  // A run by its id, as at /api/runs/{id}; a targeted one with its run_token too.
  streamReaders.register('run', async (id, credentialsOf) =>
    (await flowRuns.readable(id, runTokensOf(credentialsOf, id))) ? {} : undefined,
  );
  streamReaders.register('agent', agentStreamReader(agentAuth.tokens, clock));
  // An offer's stream is read by its offer id, the same capability as its status document; the status
  // lists' allocation records are as public as the lists they describe.
  for (const kind of ['issuance', 'status-list', 'status-lists']) streamReaders.register(kind, async () => ({}));
  // A SAML exchange is read by its id: an AuthnRequest's pending id, a login's request ID (both in the
  // messages the browser carried); a registered SP's metadata is public. Sessions (a cookie's hash) are not read.
  for (const kind of ['saml-authn', 'saml-login', 'saml-sp']) streamReaders.register(kind, async () => ({}));
  streamReaders.register('presentation', presentationStreamReader(credentials.verifier.service));

  let sweep: ReturnType<typeof setInterval> | undefined;
  onClose.push(
    () => clearInterval(sweep),
    ssf.workers.stop,
    () => palette?.close(),
    () => oauth.documentFetches.close(),
  );

  const ctx: MainContext = Object.freeze({
    config,
    internalCaller,
    clock,
    log,
    keys,
    projections: runner,
    registry: read.registry,
    revokedAccessTokens: read.revokedAccessTokens,
    runIndex: read.runIndex,
    liveSsfStreams: read.liveSsfStreams,
    agentAuth,
    securityEvents,
    pollDelivery: new PollDelivery(log, securityEvents, clock),
    catalog,
    flowRuns,
    lookingGlass,
    conformance: new Conformance(
      nodeFiles,
      join(ROOT_DIR, 'conformance/registry.yaml'),
      config.conformanceReport || join(ROOT_DIR, 'conformance/report.json'),
      CONTENT_DIR,
      { commit: config.commit, repositoryUrl: config.repositoryUrl },
      enabledExtensions(config),
    ),
    sse: new SseHub(options.sseLimits),
    palette,
    oauth,
    ssf: ssf.part,
    scim,
    saml,
    originMetadata: Object.freeze(authorizationServerMetadata(oauth.profiles.op, oauth.registrationEndpoint)),
    apiEndpoints: apiEndpoints({ mcpUser, palette: palette !== undefined }),
    health: Object.freeze({
      palette: () => ({
        loaded: palette !== undefined,
        artefacts: palette?.artefacts ?? 0,
        index_version: palette?.version ?? null,
      }),
    }),
    ...credentials,
    mcpUser: mcpUser
      ? Object.freeze(mcpUserParts(config.baseUrl, oauth, new TokenRuns(log, flowRuns, clock)))
      : undefined,
    outbound,
    machines: new MachineRegistry(),
    streamReaders,
    onClose,
  });
  return {
    ctx,
    rateLimits,
    async startWorkers() {
      await flowRuns.interruptUnfinished();
      await ssf.workers.start();
      sweep = setInterval(() => void flowRuns.expireIdle().catch(() => undefined), IDLE_SWEEP_MS);
      sweep.unref();
    },
    async closeStores() {
      await runner.stop();
      stopWatchingKeys();
      await liveness.close();
      await log.close();
    },
  };
}

/** The protected MCP endpoint's guard (RFC 9728 resource metadata, audience the endpoint, mcp:read) and its runs. */
function mcpUserParts(baseUrl: string, oauth: OAuthPart, runs: TokenRuns) {
  const urls = mcpServerConfig(baseUrl, '', true);
  const guard = oauth.guard({
    resourceMetadata: urls.userResourceMetadata,
    audience: urls.userEndpoint,
    scope: MCP_READ,
    bareChallengeWhenMissing: true,
    say: { missing: 'This MCP endpoint needs an access token; its resource metadata names the authorization server' },
  });
  return { guard, runs };
}
