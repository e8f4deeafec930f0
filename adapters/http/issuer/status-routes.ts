import type { FastifyInstance, FastifyReply } from 'fastify';
import { STATUS_LIST_TTL_S, type StatusListForm, type StatusLists } from '../../../services/status/lists.ts';
import { mediaTypeOf } from '../../../services/status/source.ts';
import { notFound } from '../../../services/errors.ts';
import type { IssuerService } from '../../../services/issuer/service.ts';
import { jsonObject, textBody } from '../response-schemas.ts';
import { bearerToken } from '../../../services/oauth/authorization-header.ts';

const errorResponse = { $ref: 'OAuthError#' };
const LIST_ID = { type: 'string', maxLength: 64 };
const CWT = 'application/statuslist+cwt';

/** The CWT form only when asked for by name; the JWT is the default (draft-ietf-oauth-status-list §8.1). */
const wantsCwt = (accept: string | undefined) =>
  (accept ?? '')
    .split(',')
    .map((part) => part.split(';')[0].trim().toLowerCase())
    .includes(CWT);

/** A served list, cacheable no longer than its `ttl` (§12.5). */
async function sendList(reply: FastifyReply, lists: StatusLists, listId: string, form: StatusListForm) {
  const body = await lists.serve(listId, form);
  if (body === undefined) throw notFound('No such status list');
  return reply
    .header('cache-control', `public, max-age=${STATUS_LIST_TTL_S}`)
    .header('vary', 'Accept')
    .type(mediaTypeOf(form))
    .send(typeof body === 'string' ? body : Buffer.from(body));
}

/** Credential status at the issuer (docs/status.md): the lists, and the issuer's change of one credential's status. */
export function issuerStatusRoutes(app: FastifyInstance, issuer: IssuerService, lists: StatusLists): void {
  const tags = ['oid4vci'];
  app.post(
    '/oid4vci/offers/:id/credentials/:n/status',
    {
      schema: {
        summary:
          "Change one issued credential's status: valid, suspended or revoked (revoked is final). Authorization: Bearer <the offer's status_token>",
        security: [{ bearer: [] }],
        tags,
        params: {
          type: 'object',
          required: ['id', 'n'],
          properties: { id: { type: 'string', maxLength: 64 }, n: { type: 'string', maxLength: 8 } },
        },
        body: {
          type: 'object',
          required: ['status'],
          properties: { status: { type: 'string', enum: ['valid', 'suspended', 'revoked'] } },
        },
        response: {
          200: jsonObject('The credential with its new status', {
            n: { type: 'integer' },
            status: { type: 'string' },
          }),
          400: errorResponse,
          401: errorResponse,
          404: errorResponse,
          409: errorResponse,
        },
      },
    },
    async (request, reply) => {
      const { id, n } = request.params as { id: string; n: string };
      reply.header('cache-control', 'no-store');
      return issuer.changeStatus(id, n, request.body, bearerToken(request.headers.authorization));
    },
  );
  app.get(
    '/oid4vci/status-lists/:list_id',
    {
      schema: {
        summary: 'A Status List Token: JWT by default, CWT with Accept: application/statuslist+cwt',
        tags,
        params: { type: 'object', required: ['list_id'], properties: { list_id: LIST_ID } },
        response: {
          200: {
            description: 'The signed Status List Token',
            content: {
              'application/statuslist+jwt': { schema: { type: 'string' } },
              [CWT]: { schema: { type: 'string', format: 'binary' } },
            },
          },
          404: errorResponse,
        },
      },
    },
    async (request, reply) =>
      sendList(
        reply,
        lists,
        (request.params as { list_id: string }).list_id,
        wantsCwt(request.headers.accept) ? 'cwt' : 'jwt',
      ),
  );
  app.get(
    '/oid4vci/status-lists/w3c/:purpose/:list_id',
    {
      schema: {
        summary: 'A W3C BitstringStatusListCredential (JWT VC) for revocation or suspension',
        tags,
        params: {
          type: 'object',
          required: ['purpose', 'list_id'],
          properties: { purpose: { type: 'string', maxLength: 16 }, list_id: LIST_ID },
        },
        response: { 200: textBody('The signed status list credential', 'application/vc+jwt'), 404: errorResponse },
      },
    },
    async (request, reply) => {
      const { purpose, list_id } = request.params as { purpose: string; list_id: string };
      if (purpose !== 'revocation' && purpose !== 'suspension') throw notFound('No such status purpose');
      return sendList(reply, lists, list_id, purpose === 'revocation' ? 'w3c-revocation' : 'w3c-suspension');
    },
  );
}
