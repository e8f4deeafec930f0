import { countedAddress, type InternalCaller } from '../rate-limit.ts';
import { refreshFamilyStates } from '../../../machines/refresh-family.ts';
import type { FastifyInstance } from 'fastify';
import { bearerToken } from '../../../services/oauth/authorization-header.ts';
import { checkClientMetadata } from '../../../services/oauth/clients/registration-metadata.ts';
import { resolveSector } from '../../../services/oauth/clients/sector.ts';
import type { OAuthDeps } from '../../../services/oauth/deps.ts';
import { oauthError } from '../../../services/errors.ts';
import type { OutboundHttp } from '../../../services/outbound.ts';
import { jsonObject } from '../response-schemas.ts';
import { errorResponse, noStore, str } from './schemas.ts';

const clientInformation = jsonObject('The client’s metadata and identifiers (RFC 7591 §3.2.1, RFC 7592 §3)', {
  client_id: { type: 'string' },
  registration_access_token: { type: 'string' },
  registration_client_uri: { type: 'string' },
});

/**
 * RFC 7591 dynamic client registration at `/oauth2/register`, for both issuers, and RFC 7592
 * management of each client at `/oauth2/register/{client_id}` with its registration access token.
 */
export function registrationRoutes(
  app: FastifyInstance,
  {
    deps,
    outbound,
    registrationsPerHour,
    internal,
  }: { deps: OAuthDeps; outbound: OutboundHttp; registrationsPerHour: number; internal: InternalCaller },
): void {
  const metadataOf = async (body: unknown) => resolveSector(checkClientMetadata(body), outbound);
  const clientParams = { type: 'object', required: ['clientId'], properties: { clientId: str(512) } };

  app.post(
    '/oauth2/register',
    {
      config: {
        // Each address may register this many clients an hour, on every instance together; a flow run's
        // own registrations count against the address that started the run (never exempt).
        rateLimit: {
          max: registrationsPerHour,
          timeWindow: 3_600_000,
          groupId: 'client-registration',
          allowList: () => false,
          keyGenerator: countedAddress(internal),
          errorResponseBuilder: () =>
            oauthError('rate_limited', `At most ${registrationsPerHour} client registrations an hour from one address`),
        },
      },
      schema: {
        summary: 'Dynamic client registration (RFC 7591): open, within the rate limit',
        tags: ['oauth2'],
        consumes: ['application/json'],
        response: { 201: clientInformation, 400: errorResponse, 429: errorResponse },
      },
    },
    async (request, reply) => {
      const information = await deps.clients.register(await metadataOf(request.body));
      return reply.code(201).headers(noStore).send(information);
    },
  );

  const token = (authorization: string | undefined) => bearerToken(authorization);
  app.get(
    '/oauth2/register/:clientId',
    {
      schema: {
        summary: 'Read a registered client (RFC 7592 §2.1); the answer carries a new registration access token',
        tags: ['oauth2'],
        params: clientParams,
        response: { 200: clientInformation, 401: errorResponse },
      },
    },
    async (request, reply) => {
      const { clientId } = request.params as { clientId: string };
      reply.headers(noStore);
      return deps.clients.read(clientId, token(request.headers.authorization));
    },
  );
  app.put(
    '/oauth2/register/:clientId',
    {
      schema: {
        summary: 'Replace a registered client’s metadata (RFC 7592 §2.2)',
        tags: ['oauth2'],
        consumes: ['application/json'],
        params: clientParams,
        response: { 200: clientInformation, 400: errorResponse, 401: errorResponse },
      },
    },
    async (request, reply) => {
      const { clientId } = request.params as { clientId: string };
      const registrationToken = token(request.headers.authorization);
      // The token is checked before the body is judged: a stranger learns nothing about the client.
      await deps.clients.authorizeManagement(clientId, registrationToken);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const information = await deps.clients.update(clientId, registrationToken, body, await metadataOf(body));
      reply.headers(noStore);
      return information;
    },
  );
  app.delete(
    '/oauth2/register/:clientId',
    {
      schema: {
        summary: 'Delete a registered client (RFC 7592 §2.3): its refresh tokens are revoked with it',
        tags: ['oauth2'],
        params: clientParams,
        response: { 204: { type: 'null', description: 'Deleted' }, 401: errorResponse },
      },
    },
    async (request, reply) => {
      const { clientId } = request.params as { clientId: string };
      const families = await deps.clients.delete(clientId, token(request.headers.authorization));
      for (const family of families) {
        await deps.families.execute(family, ({ snapshot }) =>
          refreshFamilyStates.active(snapshot)
            ? {
                type: 'refresh.revoked',
                at: deps.clock.now(),
                reason: 'client deleted',
                revokesAccess: snapshot.context.accessJtis,
              }
            : undefined,
        );
      }
      return reply.code(204).send();
    },
  );
}
