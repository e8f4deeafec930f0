import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { closeWithinGrace } from '../shutdown.ts';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import { mkdirSync } from 'node:fs';
import type { Config } from '../../config.ts';
import { withDataDirLock } from '../../keys/data-dir-lock.ts';
import { systemClock, type Clock } from '../../../services/clock.ts';
import { installErrorHandling, refuseWhileClosing, sharedServerOptions } from '../error-handling.ts';
import type { OAuthError } from '../../../services/errors.ts';
import { installRateLimit } from '../rate-limit.ts';
import { installDiscoveryCors } from '../discovery-cors.ts';
import type { SseLimits } from '../sse.ts';
import { installPageHeaders } from '../pages/links.ts';
import { sendPage } from '../pages/respond.ts';
import { errorPage, notFoundPage } from '../pages/error-pages.ts';
import type { MainContext, RoutePlugin } from './context.ts';
import { buildMainGraph, type MainGraph } from './graph.ts';
import { MAIN_ROUTES } from './routes.ts';
import { scimBodyOf } from '../../../services/scim/errors.ts';

/** The SCIM service provider's paths: errors there carry RFC 7644 §3.12's members too. */
const isScimPath = (path: string) => path === '/scim/v2' || path.startsWith('/scim/v2/');

export { createMainProjections } from './projections.ts';

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
  /** The route plugins (MAIN_ROUTES); each only reads the graph, so any order serves the same routes. */
  routes?: readonly RoutePlugin[];
}

const JSON_BODY_LIMIT = 64 * 1024;

/** Pages answer 404 with HTML; everything else with JSON. */
const isPage = (path: string) =>
  !/^\/(api|agentauth\/(?!claim)|oauth2\/(?!authorize)|oidc\/(?!authorize|logout)|oid4vci|oid4vp|mcp|ssf\/|scim\/v2|saml\/(sp\/(acs|slo|login|logout)|idp\/sps|demo\/sps)|\.well-known|spiffe|wallet-harness)/.test(
    path,
  ) && !/\.(json|txt|md|xml)$/.test(path);

export async function createMainOrigin(config: Config, options: MainOptions = {}): Promise<MainOrigin> {
  const clock = options.clock ?? systemClock;
  const wait = options.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  mkdirSync(config.dataDir, { recursive: true });
  // Instances sharing DATA_DIR provision keys and certificates once: the lock spans everything that creates them.
  const graph = await withDataDirLock(config.dataDir, () =>
    buildMainGraph(config, { clock, wait, sseLimits: options.sseLimits }),
  );
  return assemble(config, options, graph);
}

/** The fastify app of the graph: shared hooks, then every route plugin, each reading the graph alone. */
async function assemble(config: Config, options: MainOptions, graph: MainGraph): Promise<MainOrigin> {
  const { ctx } = graph;
  const internal = ctx.internalCaller;
  const pages = {
    isPage,
    sendNotFoundPage: (request: FastifyRequest, reply: FastifyReply) =>
      sendPage(request, reply, notFoundPage(request.url.split('?')[0]), 404),
    sendErrorPage: (request: FastifyRequest, reply: FastifyReply, error: OAuthError) =>
      sendPage(request, reply, errorPage(error), error.status),
    // RFC 7644 §3.12: SCIM's error members beside ours, as application/scim+json.
    dialects: [{ matches: isScimPath, contentType: 'application/scim+json; charset=utf-8', body: scimBodyOf }],
  };
  await graph.startWorkers();
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
  await installRateLimit(app, config.rateLimitPerMinute, { internal, store: graph.rateLimits });
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
      await ctx.outbound.close();
      await closeWithinGrace(app);
      await graph.closeStores();
    },
  };
}
