import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { streamOfRequestUri, type IssuerAuthorization } from '../../../services/issuer/authorization.ts';
import type { DemoUser } from '../../../services/oauth/demo-users.ts';
import { consentHandler, consentPage, loginPage, sendAuthPage, sendInteractionExpired } from '../oauth/pages.ts';
import { redirect } from '../response-schemas.ts';

const errorResponse = { $ref: 'OAuthError#' };
const str = (max = 4096) => ({ type: 'string', maxLength: max });
const interactionParams = { type: 'object', required: ['id'], properties: { id: str(100) } };

/**
 * PAR, the authorization endpoint and the login/consent pages of the issuer's authorization server
 * (decisions section 8). Pages are the same as the other authorization servers'; the client is
 * whoever pushed the request (any client_id).
 */
export function issuerAuthorizationRoutes(
  app: FastifyInstance,
  deps: {
    authorization: IssuerAuthorization;
    users: DemoUser[];
    presented: (request: FastifyRequest) => Parameters<IssuerAuthorization['par']>[1];
    /** Records the asking wallet exchange on the issuance and names its stream (docs/debugging.md). */
    correlate: (request: FastifyRequest, reply: FastifyReply, streamId: string | undefined) => Promise<void>;
  },
): void {
  const { authorization, users } = deps;
  const tags = ['oid4vci'];
  const base = '/oid4vci/interaction';
  const client = (clientId: string) => ({ client_id: clientId, client_name: clientId });
  const userById = new Map(users.map((u) => [u.id, u]));
  const expired = (request: FastifyRequest, reply: FastifyReply) =>
    sendInteractionExpired(request, reply, 'the wallet');

  app.post(
    '/oid4vci/par',
    {
      schema: {
        summary:
          'Pushed authorization request (RFC 9126): PKCE S256, authorization_details or scope, optional issuer_state and dpop_jkt',
        tags,
        body: {
          type: 'object',
          properties: Object.fromEntries(
            [
              'client_id',
              'response_type',
              'redirect_uri',
              'code_challenge',
              'code_challenge_method',
              'scope',
              'authorization_details',
              'state',
              'issuer_state',
              'dpop_jkt',
              'request',
              'request_uri',
            ].map((k) => [k, str(8192)]),
          ),
        },
        response: {
          201: { type: 'object', properties: { request_uri: str(), expires_in: { type: 'integer' } } },
          400: errorResponse,
          401: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.code(201).header('cache-control', 'no-store');
      const pushed = await authorization.par((request.body ?? {}) as Record<string, string>, deps.presented(request));
      await deps.correlate(request, reply, streamOfRequestUri(pushed.request_uri));
      return pushed;
    },
  );

  app.get(
    '/oid4vci/authorize',
    {
      schema: {
        summary: 'Authorization endpoint: client_id and request_uri only (after PAR)',
        tags,
        querystring: { type: 'object', properties: { client_id: str(200), request_uri: str(300) } },
        response: { 303: redirect('To the login and consent interaction'), 400: errorResponse },
      },
    },
    async (request, reply) => {
      const { interactionId } = await authorization.authorize(request.query as Record<string, string>);
      return reply.redirect(`${base}/${interactionId}`, 303);
    },
  );

  app.get(
    `${base}/:id`,
    { schema: { summary: 'Login and consent pages of the issuer (HTML)', tags, params: interactionParams } },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const view = await authorization.view(id);
      if (!view) return expired(request, reply);
      if (view.step === 'login')
        return sendAuthPage(
          request,
          reply,
          200,
          loginPage(`${base}/${id}/login`, client(view.request.clientId), users),
        );
      return sendAuthPage(
        request,
        reply,
        200,
        consentPage(`${base}/${id}/consent`, client(view.request.clientId), view.request, userById.get(view.sub!)!),
      );
    },
  );

  app.post(
    `${base}/:id/login`,
    {
      schema: {
        summary: 'Sign in as a demo user (form post)',
        tags,
        params: interactionParams,
        body: { type: 'object', properties: { username: str(100), password: str(200) } },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const view = await authorization.view(id);
      if (!view || view.step !== 'login') return expired(request, reply);
      const { username = '', password = '' } = (request.body ?? {}) as { username?: string; password?: string };
      const user = userById.get(username);
      if (!user || user.password !== password)
        return sendAuthPage(
          request,
          reply,
          400,
          loginPage(`${base}/${id}/login`, client(view.request.clientId), users, 'Unknown user or wrong password.'),
        );
      if (!(await authorization.login(id, user.id))) return expired(request, reply);
      return reply.redirect(`${base}/${id}`, 303);
    },
  );

  app.post(
    `${base}/:id/consent`,
    {
      schema: {
        summary: 'Allow or deny (form post)',
        tags,
        params: interactionParams,
        body: { type: 'object', properties: { decision: str(20) } },
      },
    },
    consentHandler({
      view: (id) => authorization.view(id),
      expired,
      consentPageOf: (id, view) =>
        consentPage(`${base}/${id}/consent`, client(view.request.clientId), view.request, userById.get(view.sub!)!),
      decide: async (id, approve, reply) => reply.redirect(await authorization.decide(id, approve), 303),
    }),
  );
}
