import type { SpiffeRoutes } from './context.ts';

/** `GET /spiffe/.well-known/spiffe-bundle` (SPIFFE bundle format, JWKS) and `GET /spiffe/trust-bundle` (summary). */
export const bundleRoutes: SpiffeRoutes = async (app, { identity }) => {
  app.get(
    '/spiffe/.well-known/spiffe-bundle',
    { schema: { summary: 'Trust bundle of the trust domain, JWKS (SPIFFE bundle format)' } },
    async (_request, reply) => {
      const bundle = identity.bundleJwks();
      return reply
        .type('application/json; charset=utf-8')
        .header('cache-control', `max-age=${bundle.spiffe_refresh_hint}`)
        .send(bundle);
    },
  );
  app.get(
    '/spiffe/trust-bundle',
    { schema: { summary: 'Trust bundle information: authorities, sequence, federation' } },
    () => identity.trustBundle(),
  );
};
