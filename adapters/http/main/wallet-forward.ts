import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request as undiciRequest } from 'undici';
import { oauthError } from '../../../services/errors.ts';
import { nullRecord } from '../../../services/untrusted/keys.ts';
import { sendError } from '../error-handling.ts';
import type { MainContext } from './context.ts';

const WALLET_PREFIX = '/wallet-harness';
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Request headers for the wallet: hop-by-hop ones dropped, the X-Forwarded-* set describing this origin. */
function forwardedHeaders(request: FastifyRequest, base: URL): Record<string, string> {
  const out = nullRecord<string>(); // header names come from the client
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-forwarded-')) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  out['x-forwarded-for'] = request.ip;
  out['x-forwarded-proto'] = base.protocol.replace(':', '');
  out['x-forwarded-host'] = base.host;
  out['x-forwarded-prefix'] = WALLET_PREFIX;
  return out;
}

/** A wallet `Location` as seen from this origin: wallet paths and wallet-origin URLs get the prefix. */
export function rewriteLocation(location: string, backend: URL, base: string): string {
  if (location.startsWith('/') && !location.startsWith('//')) return `${WALLET_PREFIX}${location}`;
  try {
    const url = new URL(location);
    if (url.origin === backend.origin) return `${base}${WALLET_PREFIX}${url.pathname}${url.search}${url.hash}`;
  } catch {
    // relative without a slash: leave it to the browser
  }
  return location;
}

/** A wallet cookie scoped under the prefix (`Path=/` becomes `Path=/wallet-harness/`). */
export function rewriteCookie(cookie: string): string {
  if (!/;\s*path=/i.test(cookie)) return `${cookie}; Path=${WALLET_PREFIX}/`;
  return cookie.replace(
    /(;\s*path=)([^;]*)/i,
    (_m, attribute: string, path: string) => `${attribute}${WALLET_PREFIX}${path.startsWith('/') ? path : `/${path}`}`,
  );
}

function copyResponseHeaders(reply: FastifyReply, headers: IncomingHttpHeaders, backend: URL, base: string): void {
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('access-control-') || name === 'content-length')
      continue;
    if (name === 'location') reply.header(name, rewriteLocation(String(value), backend, base));
    else if (name === 'set-cookie') reply.header(name, [value].flat().map(rewriteCookie));
    else reply.header(name, value);
  }
}

/**
 * `/wallet-harness/*` on the main origin reaches WALLET_BACKEND_ORIGIN (spec section 4, decisions
 * section 10): bodies streamed both ways, X-Forwarded-For/Proto/Host/Prefix describing this origin,
 * `Location` and cookie paths rewritten under the prefix, no CORS (the path is same-origin), the main
 * rate limit; a wallet that does not answer is 502 `wallet_unavailable`.
 */
export async function walletForwardRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const backend = new URL(ctx.config.walletBackendOrigin);
  const base = new URL(ctx.config.baseUrl);
  const agent = new Agent({ connectTimeout: 5_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  app.addHook('onClose', async () => {
    await agent.close();
  });

  await app.register(async (scoped) => {
    // Bodies pass through as streams; the wallet applies its own limits.
    scoped.removeAllContentTypeParsers();
    scoped.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scoped.route({
      method: [...METHODS],
      url: `${WALLET_PREFIX}/*`,
      schema: { summary: 'Forwarded to the wallet harness (same-origin path for browsers)', tags: ['wallet'] },
      handler: async (request, reply) => {
        const path = request.url.slice(WALLET_PREFIX.length) || '/';
        let upstream: Awaited<ReturnType<typeof undiciRequest>>;
        try {
          upstream = await undiciRequest(new URL(path, backend), {
            method: request.method as (typeof METHODS)[number],
            headers: forwardedHeaders(request, base),
            body: request.body === undefined ? undefined : (request.body as NodeJS.ReadableStream as never),
            dispatcher: agent,
          });
        } catch {
          return sendError(reply, oauthError('wallet_unavailable', 'The wallet harness does not answer'));
        }
        reply.code(upstream.statusCode);
        copyResponseHeaders(reply, upstream.headers, backend, ctx.config.baseUrl);
        return reply.send(upstream.body);
      },
    });
    scoped.get(
      WALLET_PREFIX,
      { schema: { summary: 'Redirects to /wallet-harness/', tags: ['wallet'] } },
      async (_request, reply) => reply.redirect(`${WALLET_PREFIX}/`, 308),
    );
  });
}
