import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sameText } from '../../services/crypto/compare.ts';
import { oauthError } from '../../services/errors.ts';
import { isDiscoveryDocument } from './discovery-cors.ts';
import { ON_BEHALF_OF_HEADER } from '../../services/flows/capture.ts';

/**
 * Route patterns that share the per-IP limit (decisions section 1), plus the page route that starts
 * flow runs (issue 13 item 4). Pages, /health and discovery are free. The decision is made once per
 * route, on its pattern, never on the raw URL: `/%61pi/...` reaches `/api/...` and counts as it.
 */
const LIMITED = [
  /^\/api(\/|$)/,
  /^\/agentauth\//,
  /^\/oauth2\//,
  /^\/oidc\//,
  /^\/oid4vci\//,
  /^\/oid4vp\//,
  /^\/mcp(\/user)?$/,
  // Shared Signals is an open API like /api (spec §8): management, polls and receivers count. The
  // RFC 8935 push target is left out: its callers are transmitters, this service's own among them.
  /^\/ssf\/(?!receiver\/:id\/events$)/,
  // Pages that compute from a whole run (issue 45 item 36): a diff, and a run at a point of its stream.
  /^\/runs\/:a\/diff(\/:b)?$/,
  /^\/runs\/:id$/,
  /^\/runs\/:id\/token$/,
  /^\/streams\/:stream_id$/,
  /^\/protocol\/:id\/flow\/:flow\/run$/,
  /^\/wallet-harness(\/|$)/,
];

/** Page forms whose POST does API work: the looking glass decodes as `/api/lookingglass/*` does. */
const LIMITED_POSTS = [/^\/looking-glass$/];

/** Discovery documents (metadata, JWKS) are free even under a limited prefix such as `/oid4vci/`. */
const isRateLimited = (routePattern: string, methods: readonly string[] = []) =>
  (LIMITED.some((re) => re.test(routePattern)) && !isDiscoveryDocument(routePattern)) ||
  (methods.includes('POST') && LIMITED_POSTS.some((re) => re.test(routePattern)));

/**
 * A header that marks the server's own calls (a flow run's exchanges against this origin) so they
 * never count against anybody: the run counted once against its caller when it was started.
 */
export interface InternalCaller {
  header: string;
  value: string;
}

const sameSecret = (given: unknown, expected: string) => typeof given === 'string' && sameText(given, expected);

/**
 * The address a request counts against: its own, or, for the server's own call during a flow run (the
 * internal secret shown), the address that started the run. A limit keyed by this holds for runs too.
 */
export function countedAddress(internal: InternalCaller | undefined) {
  return (request: FastifyRequest): string => {
    const onBehalf = request.headers[ON_BEHALF_OF_HEADER];
    return internal && sameSecret(request.headers[internal.header], internal.value) && typeof onBehalf === 'string'
      ? onBehalf
      : request.ip;
  };
}

export async function installRateLimit(
  app: FastifyInstance,
  perMinute: number,
  options: {
    limited?: (routePattern: string, methods: readonly string[]) => boolean;
    internal?: InternalCaller;
    store?: FastifyRateLimitStoreCtor;
  } = {},
): Promise<void> {
  const limited = options.limited ?? isRateLimited;
  const internalSecret = options.internal?.value;
  const isInternal = (request: FastifyRequest) =>
    internalSecret !== undefined && sameSecret(request.headers[options.internal!.header], internalSecret);
  // Routes that never count get no limiter hook at all; the plugin's onRoute hook, added after this one, sees the flag.
  app.addHook('onRoute', (route) => {
    if (!limited(route.url, [route.method].flat()))
      route.config = { ...(route.config as object | undefined), rateLimit: false } as typeof route.config;
  });
  await app.register(rateLimit, {
    global: true,
    ...(options.store ? { store: options.store } : {}),
    max: perMinute,
    timeWindow: 60_000,
    allowList: (request) => isInternal(request),
    addHeaders: {
      'retry-after': false,
      'x-ratelimit-limit': true,
      'x-ratelimit-remaining': true,
      'x-ratelimit-reset': true,
    },
    errorResponseBuilder: (_request, context) =>
      oauthError(
        'rate_limited',
        `More than ${context.max} requests a minute from this address; try again in ${Math.max(1, Math.ceil(context.ttl / 1000))} seconds`,
      ) as never,
  });
}
