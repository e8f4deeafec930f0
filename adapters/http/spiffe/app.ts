import Fastify, { type FastifyInstance } from 'fastify';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config.ts';
import { SqliteEventLog } from '../../store/sqlite-event-log.ts';
import { systemClock, type Clock } from '../../../services/clock.ts';
import { OAuthError } from '../../../services/errors.ts';
import { SpiffeMode } from '../../../services/workload/mode.ts';
import { SPIFFE_ENDPOINTS, spiffeSettings } from '../../../services/workload/settings.ts';
import { installErrorHandling } from '../error-handling.ts';

export interface SpiffeService {
  app: FastifyInstance;
  mode: SpiffeMode;
  close(): Promise<void>;
}

const unavailable = () => new OAuthError('temporarily_unavailable', 'SPIFFE Workload API unavailable', 503);

/**
 * The workload identity service on SPIFFE_PORT. In demo mode (the default, or while the Workload API
 * agent is unreachable) every /spiffe/* endpoint answers 503; /health reports the mode.
 */
export async function createSpiffeService(config: Config, options: { clock?: Clock; retryEveryMs?: number } = {}): Promise<SpiffeService> {
  const clock = options.clock ?? systemClock;
  mkdirSync(config.dataDir, { recursive: true });
  const log = new SqliteEventLog(join(config.dataDir, 'spiffe.db'));
  const settings = spiffeSettings(config.env, config.baseUrl, config.showcaseBaseUrl);
  const mode = new SpiffeMode(log, settings, clock);
  await mode.attempt();
  const timer = settings.enabled ? setInterval(() => void mode.attempt(), options.retryEveryMs ?? 5_000) : undefined;
  timer?.unref();

  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  installErrorHandling(app, { isPage: () => false, sendNotFoundPage: (_req, reply) => reply });
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
  for (const endpoint of SPIFFE_ENDPOINTS) {
    app.route({
      method: endpoint.method,
      url: endpoint.path,
      handler: async () => {
        if ((await mode.current()).mode === 'demo') throw unavailable();
        // Full mode needs the Workload API client, which this build does not have yet.
        throw unavailable();
      },
    });
  }
  return {
    app,
    mode,
    async close() {
      if (timer) clearInterval(timer);
      await app.close();
      await log.close();
    },
  };
}
