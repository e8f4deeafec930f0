import type { FastifyInstance } from 'fastify';

/** The RFC 8288 Link header of every page response (spec discovery rule 2, decisions section 5). */
function pageLinkHeader(walletUrl: string): string {
  return [
    '</.well-known/api-catalog>; rel="api-catalog"',
    '</openapi.json>; rel="service-desc"; type="application/openapi+json"',
    '</docs/api>; rel="service-doc"',
    '</.well-known/agent-skills/index.json>; rel="describedby"; type="application/json"',
    '</llms.txt>; rel="alternate"; type="text/plain"',
    `<${walletUrl}/llms.txt>; rel="alternate"; type="text/plain"; title="wallet"`,
    '</health>; rel="status"',
  ].join(', ');
}

/** Adds the Link header to every HTML or markdown page, and `Vary: Accept` to every HTML one. */
export function installPageHeaders(app: FastifyInstance, walletUrl: string): void {
  const link = pageLinkHeader(walletUrl);
  // A callback hook: it runs on every response, and most are not pages.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html') || type.startsWith('text/markdown')) {
      reply.header('link', link);
      const vary = String(reply.getHeader('vary') ?? '');
      if (!/\baccept\b/i.test(vary)) reply.header('vary', vary ? `${vary}, Accept` : 'Accept');
    }
    done(null, payload);
  });
}
