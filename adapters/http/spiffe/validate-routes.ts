import type { SpiffeRoutes } from './context.ts';

const MAX_CERTIFICATE_TEXT = 48 * 1024;

/** `POST /spiffe/validate/jwt` and `POST /spiffe/validate/x509`: verdicts with the check that failed and why. */
export const validateRoutes: SpiffeRoutes = async (app, { identity }) => {
  app.post(
    '/spiffe/validate/jwt',
    {
      schema: {
        summary: 'Validate a JWT-SVID against the JWT bundle and an audience',
        body: {
          type: 'object',
          required: ['token', 'audience'],
          additionalProperties: false,
          properties: {
            token: { type: 'string', minLength: 1, maxLength: 16_384 },
            audience: { type: 'string', minLength: 1, maxLength: 2048 },
          },
        },
      },
    },
    (request) => identity.validateJwt(request.body as { token: string; audience: string }),
  );

  app.post(
    '/spiffe/validate/x509',
    {
      schema: {
        summary:
          'Validate an X.509-SVID (PEM, or a chain of PEM/base64 DER certificates, leaf first) against the X.509 bundle',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            pem: { type: 'string', minLength: 1, maxLength: MAX_CERTIFICATE_TEXT },
            chain: {
              type: 'array',
              minItems: 1,
              maxItems: 10,
              items: { type: 'string', minLength: 1, maxLength: 16_384 },
            },
          },
        },
      },
    },
    (request) => identity.validateX509(request.body as { pem?: string; chain?: string[] }),
  );
};
