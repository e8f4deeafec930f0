import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../services/errors.ts';

/** Path prefixes that share the per-IP limit (decisions section 1). Pages, /health and discovery are free. */
const LIMITED = [/^\/api(\/|$|\?)/, /^\/agentauth\//, /^\/oauth2\//, /^\/oidc\//, /^\/oid4vci\//, /^\/oid4vp\//, /^\/mcp(\/|$|\?)/];

export const isRateLimited = (url: string) => LIMITED.some((re) => re.test(url));

export async function installRateLimit(app: FastifyInstance, perMinute: number, limited: (url: string) => boolean = isRateLimited): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    allowList: (request) => !limited(request.url),
    addHeaders: { 'retry-after': false, 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    errorResponseBuilder: (_request, context) =>
      new OAuthError('rate_limited', `More than ${context.max} requests a minute from this address`, 429) as never,
  });
}
