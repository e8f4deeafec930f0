import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { closeWithinGrace } from '../shutdown.ts';
import { faviconRoutes } from '../pages/assets.ts';
import formbody from '@fastify/formbody';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import type { Config } from '../../config.ts';
import { GuardedHttp, type Resolver } from '../../outbound/guarded-http.ts';
import { WalletCredentialStatus } from '../../../services/wallet/credential-status.ts';
import { SqliteEventLog } from '../../store/sqlite-event-log.ts';
import { loadDeviceKey } from '../../wallet/device-key.ts';
import { systemClock, type Clock } from '../../../services/clock.ts';
import type { OAuthError } from '../../../services/errors.ts';
import { WalletSessions } from '../../../services/wallet/sessions.ts';
import { trustedOrigins } from '../../../services/wallet/settings.ts';
import { installErrorHandling, refuseWhileClosing, sharedServerOptions } from '../error-handling.ts';
import { errorPage, notFoundPage } from '../pages/error-pages.ts';
import { sendPage } from '../pages/respond.ts';
import { installRateLimit } from '../rate-limit.ts';
import type { WalletContext, WalletTrust } from './context.ts';
import { installWalletCors } from './cors.ts';
import { discoveryRoutes } from './discovery-routes.ts';
import { WALLET_CHROME } from './chrome.ts';
import { consentRoutes } from './consent-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { issuanceRoutes } from './issuance-routes.ts';
import { WalletExchanges } from '../../../services/wallet/exchange.ts';
import { WalletIssuance } from '../../../services/wallet/issuance/service.ts';
import { WalletPresentation } from '../../../services/wallet/presentation/service.ts';
import { presentationRoutes } from './presentation-routes.ts';
import { exchangeExportRoutes } from './exchange-export-routes.ts';

export interface WalletService {
  app: FastifyInstance;
  ctx: WalletContext;
  close(): Promise<void>;
}

export interface WalletOptions {
  clock?: Clock;
  /** DNS for the outbound guard (tests stub it). */
  resolver?: Resolver;
  /** Roots the wallet trusts beyond its variables (the main origin's, under `npm start`). */
  embeddedTrust?: Pick<WalletTrust, 'mdocIacaRootsPem' | 'verifierTrustAnchorsPem'>;
  requestTimeoutMs?: number;
  /** Sessions held at once (memory bound). */
  maxSessions?: number;
  /** Pauses between deferred-credential polls (tests move a clock instead of sleeping). */
  wait?: (ms: number) => Promise<void>;
}

const JSON_BODY_LIMIT = 64 * 1024;
const ROUTES = [
  discoveryRoutes,
  sessionRoutes,
  issuanceRoutes,
  presentationRoutes,
  consentRoutes,
  exchangeExportRoutes,
];
/** Paths of the wallet whose errors are pages. */
const isPage = (path: string) => path === '/' || path.startsWith('/consent/');
/** The JSON API paths that share the per-IP limit (decisions section 10). */
const isLimited = (route: string) => /^\/api\//.test(route) || route === '/submit' || route === '/authorize';

/** Peers whose X-Forwarded-* headers are believed: loopback, or the TRUST_PROXY list. */
function forwardingTrust(config: Config) {
  const listed = new Set(config.trustProxy || []);
  return (peer: string | undefined) => {
    if (!peer || !ipaddr.isValid(peer)) return false;
    const address = ipaddr.process(peer);
    return address.range() === 'loopback' || listed.has(address.toString()) || listed.has(peer);
  };
}

/** The wallet harness on WALLET_PORT (spec section 4 "Wallet harness", decisions section 10). */
export async function createWalletService(config: Config, options: WalletOptions = {}): Promise<WalletService> {
  const settings = config.wallet;
  const clock = options.clock ?? systemClock;
  const deviceKey = await loadDeviceKey(settings.deviceKeyPath);
  mkdirSync(config.dataDir, { recursive: true });
  const log = new SqliteEventLog(join(config.dataDir, 'wallet.db'));
  const walletHost = new URL(config.walletUrl).host;
  const trust: WalletTrust = {
    mdocIacaRootsPem: [...settings.mdocIacaRootsPem, ...(options.embeddedTrust?.mdocIacaRootsPem ?? [])],
    verifierTrustAnchorsPem: [
      ...settings.verifierTrustAnchorsPem,
      ...(options.embeddedTrust?.verifierTrustAnchorsPem ?? []),
    ],
    mode: options.embeddedTrust ? 'embedded' : 'standalone',
  };
  const exchanges = new WalletExchanges(log, clock);
  const outbound = new GuardedHttp({
    trustedOrigins: trustedOrigins(settings),
    allowExternal: settings.allowExternalVerifiers,
    dnsOverrides: settings.dnsOverrides,
    resolver: options.resolver,
  });
  const credentialStatus = new WalletCredentialStatus(outbound, trust.mdocIacaRootsPem, clock);
  // Built before the context, which holds them finished (no member is filled in later).
  const issuance = new WalletIssuance({
    settings,
    outbound,
    exchanges,
    clock,
    deviceKey,
    iacaRoots: trust.mdocIacaRootsPem,
    trustedOrigins: trustedOrigins(settings),
    wait: options.wait ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  });
  const presentation = new WalletPresentation({
    settings,
    outbound,
    exchanges,
    clock,
    deviceKey,
    issuance,
    verifierTrustAnchorsPem: trust.verifierTrustAnchorsPem,
    trustedOrigins: trustedOrigins(settings),
    credentialStatus,
  });
  const ctx: WalletContext = {
    config,
    settings,
    clock,
    credentialStatus,
    sessions: new WalletSessions(
      {
        ttlMs: settings.sessionTtlMs,
        strict: settings.strictSessionIsolation,
        signingAlg: settings.defaultSigningAlg,
        didMethod: settings.didMethod,
        walletHost,
        maxSessions: options.maxSessions ?? 50_000,
      },
      clock,
    ),
    deviceKey,
    outbound,
    trust,
    log,
    issuance,
    presentation,
    trustsForwarding: forwardingTrust(config),
  };

  const pages = {
    isPage,
    sendNotFoundPage: (request: FastifyRequest, reply: FastifyReply) =>
      sendPage(request, reply, notFoundPage(request.url.split('?')[0]), 404, WALLET_CHROME),
    sendErrorPage: (request: FastifyRequest, reply: FastifyReply, error: OAuthError) =>
      sendPage(request, reply, errorPage(error), error.status, WALLET_CHROME),
  };
  const app = Fastify({
    ...sharedServerOptions(pages, options.requestTimeoutMs),
    logger: false,
    bodyLimit: JSON_BODY_LIMIT,
    // Behind the main origin's forward every request comes from it: the client address is in X-Forwarded-For.
    trustProxy: (address: string) => ctx.trustsForwarding(address),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });
  const draining = refuseWhileClosing(app);
  installErrorHandling(app, pages);
  // Every answer of the wallet is about one session's keys and credentials: never cached.
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/api/') || request.url === '/submit') reply.header('cache-control', 'no-store');
    return payload;
  });
  const cors = installWalletCors(app, settings.allowedCorsOrigins);
  await app.register(formbody, { bodyLimit: JSON_BODY_LIMIT });
  await installRateLimit(app, config.rateLimitPerMinute, { limited: isLimited });
  for (const routes of ROUTES) await routes(app, ctx);
  await faviconRoutes(app);
  cors.addPreflights();

  const sweeper = setInterval(() => ctx.sessions.sweep(), 60_000);
  sweeper.unref();
  let closed = false;
  return {
    app,
    ctx,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweeper);
      draining.close();
      await closeWithinGrace(app);
      await outbound.close();
      await log.close();
    },
  };
}
