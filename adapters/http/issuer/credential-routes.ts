import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { encryptResponse, type ResponseEncryption } from '../../../services/issuer/encryption.ts';
import { IssuerService } from '../../../services/issuer/service.ts';
import type { MainContext } from '../main/context.ts';

import type { PresentedRequest } from '../../../services/issuer/core.ts';

const errorResponse = { $ref: 'OAuthError#' };
/** Notes for the wallet's developer, e.g. that the drafts' singular `proof` was accepted. */
const notes = { type: 'array', items: { type: 'string' } };
const credentialResponse = {
  type: 'object',
  additionalProperties: true,
  properties: { credentials: { type: 'array' }, notification_id: { type: 'string' }, notes },
};
const deferredResponse = {
  type: 'object',
  properties: { transaction_id: { type: 'string' }, interval: { type: 'integer' }, notes },
};
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The credential, deferred credential and notification endpoints (OpenID4VCI 1.0 §8, §9, §11). */
export function credentialRoutes(
  app: FastifyInstance,
  ctx: MainContext,
  issuer: IssuerService,
  presented: (request: FastifyRequest) => PresentedRequest,
): void {
  const { settings } = ctx.issuer;
  const tags = ['oid4vci'];
  // Encrypted credential and deferred requests arrive as compact JWE (application/jwt).
  app.addContentTypeParser('application/jwt', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) =>
    done(null, body),
  );
  const encrypted = (request: FastifyRequest) =>
    /^application\/jwt\b/.test(String(request.headers['content-type'] ?? ''));
  /** A credential or deferred answer, never cached (errors included), encrypted when the request asked. */
  const answer = async (
    reply: FastifyReply,
    pending: Promise<{ status: number; body: unknown; encryptTo?: ResponseEncryption }>,
  ) => {
    reply.header('cache-control', 'no-store');
    const result = await pending;
    if (settings.dpopNonceRequired) reply.header('dpop-nonce', issuer.rsNonces.current());
    if (result.encryptTo)
      return reply
        .code(result.status as 200)
        .type('application/jwt')
        .serializer((s: unknown) => String(s))
        .send(await encryptResponse(result.body, result.encryptTo));
    return reply.code(result.status as 200).send(result.body);
  };
  app.post(
    '/oid4vci/credential',
    {
      schema: {
        summary: 'Credential endpoint: key proofs in, credentials out (batch up to batch_size)',
        tags,
        response: {
          200: credentialResponse,
          202: deferredResponse,
          400: errorResponse,
          401: errorResponse,
          403: errorResponse,
        },
      },
    },
    (request, reply) => answer(reply, issuer.credential(request.body, presented(request), encrypted(request))),
  );
  app.post(
    '/oid4vci/deferred_credential',
    {
      schema: {
        summary: 'Deferred credential endpoint: 202 until ready, then the credentials once',
        tags,
        response: { 200: credentialResponse, 202: deferredResponse, 400: errorResponse, 401: errorResponse },
      },
    },
    (request, reply) => answer(reply, issuer.deferredCredential(request.body, presented(request), encrypted(request))),
  );
  app.post(
    '/oid4vci/notification',
    {
      schema: {
        summary: 'Notification endpoint: credential_accepted, credential_failure, credential_deleted',
        tags,
        response: { 204: { type: 'null' }, 400: errorResponse, 401: errorResponse },
      },
    },
    async (request, reply) => {
      await issuer.notification(request.body, presented(request));
      return reply.code(204).send();
    },
  );
}
