import { invalidRequest } from '../../../services/errors.ts';
import type { SpiffeRoutes } from './context.ts';

const MAX_AUDIENCES = 10;
const audienceString = { type: 'string', minLength: 1, maxLength: 2048 };

/** `GET /spiffe/svid/x509`, `/spiffe/svid/x509/chain` (PEM), `/spiffe/svid/jwt?audience=`, `/spiffe/svid/info`. */
export const svidRoutes: SpiffeRoutes = async (app, { identity }) => {
  app.get('/spiffe/svid/x509', { schema: { summary: 'The X.509-SVID: SPIFFE ID and certificate fields' } }, () =>
    identity.x509Svid(),
  );

  app.get(
    '/spiffe/svid/x509/chain',
    { schema: { summary: 'The X.509-SVID chain, PEM, leaf first' } },
    async (_request, reply) => {
      const pem = identity.chainPem();
      return reply
        .type('application/x-pem-file')
        .header('content-disposition', 'inline; filename="svid-chain.pem"')
        .send(pem);
    },
  );

  app.get(
    '/spiffe/svid/jwt',
    {
      schema: {
        summary: 'A JWT-SVID for the audience(s), with its decoded header and claims',
        querystring: {
          type: 'object',
          properties: {
            audience: {
              anyOf: [audienceString, { type: 'array', minItems: 1, maxItems: MAX_AUDIENCES, items: audienceString }],
            },
          },
        },
      },
    },
    async (request) => {
      const { audience } = request.query as { audience?: string | string[] };
      const audiences = audience === undefined ? [identity.settings.baseUrl] : [audience].flat();
      if (audiences.some((a) => /[\u0000-\u001f\u007f]/.test(a)))
        throw invalidRequest('audience must not contain control characters');
      return identity.jwtSvid(audiences);
    },
  );

  app.get('/spiffe/svid/info', { schema: { summary: 'SVID metadata: lifetime, rotation, key' } }, () =>
    identity.svidInfo(),
  );
};
