import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { oauthError } from '../../../services/errors.ts';
import { correlatePresentation } from '../../../services/verifier/correlation.ts';
import { ATTESTATION_KEY_SET } from '../../../services/verifier/request-object.ts';
import { requestIdOfState } from '../../../services/verifier/rules.ts';
import type { CreateRequestInput, ResponseInput } from '../../../services/verifier/service.ts';
import { correlate } from '../correlation.ts';
import type { MainContext } from '../main/context.ts';
import { pemRoute } from '../pem-route.ts';
import { handoffWanted, sendHandoff } from '../handoff.ts';
import { sendPage } from '../pages/respond.ts';
import { dcApiPage } from './dc-api-page.ts';
import { jsonObject, stringMembers, textBody } from '../response-schemas.ts';
import { CREATE_WORKED_EXAMPLE, createdRequest, createRequestBody } from './create-schema.ts';

const errorResponse = { $ref: 'OAuthError#' };
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } };
const REQUEST_OBJECT_TYPE = 'application/oauth-authz-req+jwt';
const requestObjectResponse = textBody(
  'The request object, a signed JWT (typ oauth-authz-req+jwt)',
  REQUEST_OBJECT_TYPE,
);
const tags = ['oid4vp'];

/** The OID4VP verifier at `{base}/oid4vp` (decisions section 9). */
export async function verifierRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const { service: verifier, settings, pki } = ctx.verifier;

  app.post(
    '/oid4vp/request/create',
    {
      schema: {
        summary: 'Create a presentation request (DCQL; one of five client_id prefixes; direct_post or direct_post.jwt)',
        description: CREATE_WORKED_EXAMPLE,
        tags,
        body: createRequestBody,
        response: { 201: createdRequest, 400: errorResponse },
      },
    },
    async (request, reply) => {
      const created = await verifier.createRequest((request.body ?? {}) as CreateRequestInput);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  const sendRequestObject = (reply: import('fastify').FastifyReply, jwt: string) =>
    reply.header('cache-control', 'no-store').type(REQUEST_OBJECT_TYPE).send(jwt);
  /** Correlation (docs/debugging.md): records the asking wallet exchange and names this request's stream. */
  const correlateRequest = (request: FastifyRequest, reply: FastifyReply, requestId: string | undefined) =>
    correlate(request, reply, (walletExchange) => correlatePresentation(verifier, requestId, walletExchange));
  app.get(
    '/oid4vp/request/:id',
    {
      schema: {
        summary:
          'The signed request object (request_uri_method get); with Accept image/png or text/html, the QR code of its openid4vp:// link (haip-vp:// for HAIP), for any request still open',
        tags,
        params: idParams,
        response: { 200: requestObjectResponse, 400: errorResponse, 404: errorResponse, 405: errorResponse },
      },
    },
    async (request, reply) => {
      const id = (request.params as { id: string }).id;
      const wanted = handoffWanted(request, REQUEST_OBJECT_TYPE);
      if (wanted !== 'document')
        return sendHandoff(request, reply, wanted, await verifier.handoffLink(id), {
          title: 'A presentation request',
          explanation:
            'A verifier asks for a presentation (OpenID4VP 1.0). Hand this link to a wallet: scan it, or give it to the wallet harness (POST {wallet}/submit {"uri": "<link>"}).',
        });
      const jwt = await verifier.requestObject(id, 'get');
      await correlateRequest(request, reply, id);
      return sendRequestObject(reply, jwt);
    },
  );
  app.post(
    '/oid4vp/request/:id',
    {
      schema: {
        summary: 'The signed request object (request_uri_method post; wallet_nonce echoed)',
        tags,
        params: idParams,
        body: {
          type: 'object',
          nullable: true,
          properties: {
            wallet_nonce: { type: 'string', maxLength: 256 },
            wallet_metadata: { type: 'string', maxLength: 16_384 },
          },
        },
        response: { 200: requestObjectResponse, 400: errorResponse, 404: errorResponse, 405: errorResponse },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as { wallet_nonce?: string };
      const id = (request.params as { id: string }).id;
      const jwt = await verifier.requestObject(id, 'post', body.wallet_nonce);
      await correlateRequest(request, reply, id);
      return sendRequestObject(reply, jwt);
    },
  );

  app.post(
    '/oid4vp/response',
    {
      schema: {
        summary: 'Response endpoint (direct_post: vp_token + state, or error + state; direct_post.jwt: response)',
        tags,
        body: stringMembers({
          vp_token: 1_000_000,
          state: 200,
          response: 1_000_000,
          error: 200,
          error_description: 2000,
        }),
        response: { 200: { type: 'object', additionalProperties: true }, 400: errorResponse },
      },
    },
    async (request, reply) => {
      if (!/^application\/x-www-form-urlencoded\b/i.test(String(request.headers['content-type'] ?? '')))
        throw oauthError('invalid_request', 'The response is posted as application/x-www-form-urlencoded');
      reply.header('cache-control', 'no-store');
      const input = (request.body ?? {}) as ResponseInput;
      // Before the answer, so that a response refused later still names the exchange that sent it.
      await correlateRequest(request, reply, requestIdOfState(input.state));
      return verifier.receiveResponse(input);
    },
  );

  app.post(
    '/oid4vp/dc-api/:id/response',
    {
      schema: {
        summary:
          'Digital Credentials API answer (OpenID4VP 1.0 Appendix A.4): {origin, data} as the browser returned them, for the request of this transaction_id',
        tags,
        params: idParams,
        body: {
          type: 'object',
          required: ['origin', 'data'],
          additionalProperties: false,
          properties: {
            origin: { type: 'string', maxLength: 500, description: 'The origin the browser reported' },
            data: {
              anyOf: [
                { type: 'object', additionalProperties: true },
                { type: 'string', maxLength: 1_000_000 },
              ],
              description: 'credential.data: {vp_token} (dc_api), {response} (dc_api.jwt) or {error}',
            },
          },
        },
        response: {
          200: jsonObject('Taken; the verdict is at result_uri', {}),
          400: errorResponse,
          404: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return verifier.receiveDcApiResponse((request.params as { id: string }).id, request.body as never);
    },
  );
  app.get(
    '/oid4vp/dc-api/:id',
    {
      schema: {
        summary: "The page that presents through the browser's Digital Credentials API (HTML, or markdown by Accept)",
        tags,
        params: idParams,
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return sendPage(request, reply, dcApiPage(await verifier.dcApiView((request.params as { id: string }).id)));
    },
  );

  app.get(
    '/oid4vp/result/:id',
    {
      schema: {
        summary:
          "What became of a presentation request, read by its transaction_id (never the request id): status, reasons by named check, disclosed claims (with the answer's response_code when it produced one)",
        tags,
        params: idParams,
        querystring: { type: 'object', properties: { response_code: { type: 'string', maxLength: 200 } } },
        response: {
          200: jsonObject(
            'The result document: status, reasons by named check, disclosed claims per credential query',
            { request_id: { type: 'string' }, status: { type: 'string' } },
          ),
          400: errorResponse,
          404: errorResponse,
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return verifier.result(
        (request.params as { id: string }).id,
        (request.query as { response_code?: string }).response_code,
      );
    },
  );

  pemRoute(
    app,
    '/oid4vp/ca.pem',
    "The CA of the verifier's request-object signing certificate (PEM)",
    tags,
    pki.ca.pem,
  );
  app.get(
    '/.well-known/oauth-authorization-server/oid4vp/verifier-attestation',
    { schema: { summary: 'Metadata of the verifier attestation issuer (RFC 8414)', tags } },
    async () => ({
      issuer: settings.attestationIssuer,
      jwks_uri: `${settings.attestationIssuer}/jwks.json`,
    }),
  );
  app.get(
    '/oid4vp/verifier-attestation/jwks.json',
    { schema: { summary: 'Keys of the verifier attestation issuer', tags } },
    async () => ctx.keys.jwks(ATTESTATION_KEY_SET),
  );
}
