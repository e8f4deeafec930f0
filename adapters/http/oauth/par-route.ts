import type { FastifyInstance } from 'fastify';
import type { Authorization } from '../../../services/oauth/authorization.ts';
import type { OAuthTokenServer } from '../../../services/oauth/token/oauth-server.ts';
import { jsonObject } from '../response-schemas.ts';
import { AUTHORIZE_PARAMS, clientAuthFields, errorResponse, formBody, noStore, str } from './schemas.ts';

/** RFC 9126: the pushed authorization request endpoint of one issuer. */
export function parRoute(
  app: FastifyInstance,
  { authorization, tokenEndpoint }: { authorization: Authorization; tokenEndpoint: OAuthTokenServer },
): void {
  const { profile } = authorization;
  app.post(
    `${profile.prefix}/par`,
    {
      schema: {
        summary: 'Pushed authorization request endpoint (RFC 9126): 201 with a request_uri for /authorize',
        tags: [profile.id === 'op' ? 'oidc' : 'oauth2'],
        consumes: ['application/x-www-form-urlencoded'],
        body: formBody({ ...Object.fromEntries(AUTHORIZE_PARAMS.map((k) => [k, str(2000)])), ...clientAuthFields }),
        response: {
          201: jsonObject('The request_uri that stands for the pushed request, and its lifetime', {
            request_uri: { type: 'string' },
            expires_in: { type: 'integer' },
          }),
          400: errorResponse,
          401: errorResponse,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as Record<string, string | undefined>;
      // RFC 9126 §2.1: the client authenticates as it would at the token endpoint.
      const { client } = await tokenEndpoint.authenticate(
        { body, authorization: request.headers.authorization },
        'par',
      );
      const pushed = await authorization.pushed.push({ ...body, client_id: client.client_id }, client);
      return reply.code(201).headers(noStore).send(pushed);
    },
  );
}
