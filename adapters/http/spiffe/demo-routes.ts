import { invalidRequest } from '../../../services/errors.ts';
import type { SpiffeRoutes } from './context.ts';

/** An optional JSON object body with only the named string fields. */
function options(body: unknown, allowed: string[], refusal: string): Record<string, string> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The body, when sent, is a JSON object');
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (!allowed.includes(key)) throw invalidRequest(refusal);
    if (typeof value !== 'string' || value.length === 0 || value.length > 2048 || /[\u0000-\u001f\u007f]/.test(value))
      throw invalidRequest(`${key} must be a non-empty string of at most 2048 printable characters`);
    out[key] = value;
  }
  return out;
}

/** `POST /spiffe/demo/mtls/call`, `POST /spiffe/demo/jwt-auth/call`, `GET /spiffe/demo/rotation`. */
export const demoRoutes: SpiffeRoutes = async (app, { identity }) => {
  app.post(
    '/spiffe/demo/mtls/call',
    { schema: { summary: 'Mutual TLS with our X.509-SVID to SPIRE_SERVER_ADDRESS, each step reported' } },
    (request) => {
      options(
        request.body,
        [],
        'The mTLS demo takes no options: it dials SPIRE_SERVER_ADDRESS only, never a target named in the request',
      );
      return identity.mtlsDemo();
    },
  );

  app.post(
    '/spiffe/demo/jwt-auth/call',
    { schema: { summary: 'Fetch a JWT-SVID and validate it by a ValidateJWTSVID round trip, each step reported' } },
    (request) => {
      const { audience } = options(request.body, ['audience'], 'The JWT auth demo takes only an optional audience');
      return identity.jwtAuthDemo(audience);
    },
  );

  app.get(
    '/spiffe/demo/rotation',
    { schema: { summary: 'X.509-SVID rotations observed on the Workload API stream, from the event log' } },
    () => identity.rotationDemo(),
  );
};
