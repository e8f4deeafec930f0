import Fastify, { type FastifyInstance } from 'fastify';
import { closeWithinGrace } from '../shutdown.ts';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config.ts';
import { SqliteEventLog } from '../../store/sqlite-event-log.ts';
import { GrpcWorkloadApiConnector } from '../../workload-api/client.ts';
import { tlsDialer } from '../../workload-api/mtls-dialer.ts';
import { systemClock, type Clock } from '../../../services/clock.ts';
import type { SpiffeMode } from '../../../services/workload/mode.ts';
import type { MtlsDialer, WorkloadApiConnector } from '../../../services/workload/ports.ts';
import { WorkloadIdentity, unavailable } from '../../../services/workload/service.ts';
import { SPIFFE_ENDPOINTS, spiffeSettings } from '../../../services/workload/settings.ts';
import { installErrorHandling, refuseWhileClosing, sharedServerOptions } from '../error-handling.ts';
import { installRateLimit } from '../rate-limit.ts';
import { bundleRoutes } from './bundle-routes.ts';
import type { SpiffeRoutes } from './context.ts';
import { demoRoutes } from './demo-routes.ts';
import { statusRoutes } from './status-routes.ts';
import { svidRoutes } from './svid-routes.ts';
import { validateRoutes } from './validate-routes.ts';

export interface SpiffeService {
  app: FastifyInstance;
  mode: SpiffeMode;
  identity: WorkloadIdentity;
  close(): Promise<void>;
}

export interface SpiffeServiceOptions {
  clock?: Clock;
  /** How often a connection attempt is considered; the attempt itself waits for the machine's backoff. */
  retryEveryMs?: number;
  connector?: WorkloadApiConnector;
  dialer?: MtlsDialer;
}

const ROUTES: SpiffeRoutes[] = [statusRoutes, bundleRoutes, svidRoutes, validateRoutes, demoRoutes];

/**
 * The workload identity service on SPIFFE_PORT. In demo mode (the default, or while the Workload API
 * agent is unreachable) every /spiffe/* endpoint answers 503 before its request is even read; in full
 * mode they are served from the live Workload API session. /health reports the mode.
 */
export async function createSpiffeService(config: Config, options: SpiffeServiceOptions = {}): Promise<SpiffeService> {
  const clock = options.clock ?? systemClock;
  mkdirSync(config.dataDir, { recursive: true });
  const log = new SqliteEventLog(join(config.dataDir, 'spiffe.db'));
  const settings = spiffeSettings(config.spiffe, config.baseUrl, config.showcaseBaseUrl);
  const identity = new WorkloadIdentity(log, settings, clock, {
    connector: options.connector ?? new GrpcWorkloadApiConnector(),
    dialer: options.dialer ?? tlsDialer,
  });
  const mode = identity.mode;
  await mode.recover();
  await mode.attempt();
  const timer = settings.enabled
    ? setInterval(() => void mode.attempt().catch(() => undefined), options.retryEveryMs ?? 5_000)
    : undefined;
  timer?.unref();

  const app = Fastify({
    ...sharedServerOptions({ isPage: () => false }),
    logger: false,
    bodyLimit: 64 * 1024,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });
  const draining = refuseWhileClosing(app);
  installErrorHandling(app, { isPage: () => false, sendNotFoundPage: (_req, reply) => reply });
  // The SPIFFE demo endpoints are open APIs: the per-IP limit of the read and demo APIs applies (spec section 8).
  await installRateLimit(app, config.rateLimitPerMinute, { limited: (route) => route.startsWith('/spiffe/') });
  app.get('/health', async () => {
    const current = await mode.current();
    return {
      status: 'ok',
      service: 'workload-identity',
      mode: current.mode,
      trust_domain: settings.trustDomain,
      full_mode_enabled: settings.enabled,
      ...(current.context.lastError ? { last_error: current.context.lastError } : {}),
    };
  });
  // Demo mode: 503 for every SPIFFE endpoint, whatever the request carries. Added to each route after
  // the rate limiter's own hook, so that the limit counts these requests too.
  const demoModeGate = async () => {
    if (!mode.session()) throw unavailable();
  };
  app.addHook('onRoute', (route) => {
    if (!route.url?.startsWith('/spiffe/')) return;
    const existing = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [...existing, demoModeGate] as typeof route.onRequest;
  });
  for (const routes of ROUTES) await routes(app, { identity });
  await app.ready();
  const missing = SPIFFE_ENDPOINTS.filter((e) => !app.hasRoute({ method: e.method, url: e.path }));
  if (missing.length > 0) throw new Error(`SPIFFE endpoints without a route: ${missing.map((e) => e.path).join(', ')}`);

  return {
    app,
    mode,
    identity,
    async close() {
      if (timer) clearInterval(timer);
      draining.close();
      await mode.close();
      await closeWithinGrace(app);
      await identity.recorded();
      await log.close();
    },
  };
}
