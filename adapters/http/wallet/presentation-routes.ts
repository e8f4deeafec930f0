import type { PresentBody, ResolveBody } from '../../../services/wallet/presentation/service.ts';
import type { WalletRoutes } from './context.ts';
import { requestSession } from './request-session.ts';
import { appPath, exchangeErrorResponse, resultResponse } from './route-shared.ts';

const errorResponse = exchangeErrorResponse;
/** What presenting answers: the result, or why not (403 external trust, 422 nothing matches, 502 the verifier). */
const presentResponses = {
  200: resultResponse,
  400: errorResponse,
  403: errorResponse,
  422: errorResponse,
  502: errorResponse,
};

/** The schema of a route that presents: its body is a present request, its answers `presentResponses`. */
const presentSchema = (summary: string) => ({
  summary,
  body: { type: 'object', additionalProperties: false, properties: presentMembers },
  response: presentResponses,
});

const requestMembers = {
  uri: { type: 'string', maxLength: 16_384 },
  request_uri: { type: 'string', maxLength: 2000 },
  client_id: { type: 'string', maxLength: 4096 },
  request_uri_method: { type: 'string', enum: ['get', 'post', 'GET', 'POST'] },
};
const presentMembers = {
  ...requestMembers,
  request_id: {
    type: 'string',
    maxLength: 100,
    description:
      "The wallet's id of a pending request (req_…), as /api/resolve answered it; not the verifier's request id",
  },
  credential_ids: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 100 } },
  disclose: {
    type: 'object',
    maxProperties: 20,
    additionalProperties: {
      type: 'array',
      maxItems: 50,
      items: { type: 'array', maxItems: 10, items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    },
  },
  approve_external_trust: { type: 'boolean' },
  approve_unknown_transaction_types: {
    type: 'boolean',
    description:
      'The request carries transaction data of a type this wallet does not know (shown raw by /api/resolve): approve it (403 transaction_approval_required otherwise)',
  },
};

/** `POST /api/resolve`, `POST /api/present`, `POST /submit`, `GET /authorize` (decisions section 10). */
export const presentationRoutes: WalletRoutes = (app, ctx) => {
  app.post(
    '/api/resolve',
    {
      schema: {
        summary: 'Resolve an OID4VP request: fetch, authenticate, match DCQL against the session',
        body: { type: 'object', additionalProperties: false, properties: requestMembers },
        response: { 200: resultResponse, 400: errorResponse, 403: errorResponse, 502: errorResponse },
      },
    },
    async (request, reply) =>
      (await ctx.presentation.resolve(await requestSession(ctx, request, reply), request.body as ResolveBody)).view,
  );

  app.post(
    '/api/present',
    {
      schema: presentSchema('Present to a resolved request (or resolve and present): direct_post or direct_post.jwt'),
    },
    async (request, reply) =>
      ctx.presentation.present(await requestSession(ctx, request, reply), request.body as PresentBody),
  );

  const approvals = {
    credential_ids: presentMembers.credential_ids,
    disclose: presentMembers.disclose,
    approve_external_trust: presentMembers.approve_external_trust,
    approve_unknown_transaction_types: presentMembers.approve_unknown_transaction_types,
  };
  app.post(
    '/api/dc-api/present',
    {
      schema: {
        summary:
          'Answer a Digital Credentials API request as a platform wallet would (OpenID4VP 1.0 Appendix A): {origin, requests} in, {protocol, data} out, to post to the verifier with the origin',
        body: {
          type: 'object',
          required: ['origin', 'requests'],
          additionalProperties: false,
          properties: {
            origin: { type: 'string', maxLength: 500, description: 'The origin of the page that called the API' },
            requests: {
              type: 'array',
              minItems: 1,
              maxItems: 10,
              description: 'digital.requests as the page passed them: [{protocol, data}]',
              items: {
                type: 'object',
                required: ['protocol', 'data'],
                properties: { protocol: { type: 'string', maxLength: 100 }, data: { type: 'object' } },
              },
            },
            ...approvals,
          },
        },
        response: presentResponses,
      },
    },
    async (request, reply) =>
      ctx.presentation.presentThroughBrowser(
        await requestSession(ctx, request, reply),
        request.body as never,
        appPath(ctx, request),
      ),
  );

  app.post(
    '/submit',
    {
      schema: presentSchema('Resolve, issue what is missing from the trusted issuer, and present, in one call'),
    },
    async (request, reply) =>
      ctx.presentation.submit(
        await requestSession(ctx, request, reply),
        request.body as PresentBody,
        appPath(ctx, request),
      ),
  );

  app.get(
    '/authorize',
    {
      schema: {
        summary:
          'OID4VP wallet authorization endpoint: resolves, issues the inferred credential when nothing matches, leads to the consent page',
        querystring: { type: 'object', additionalProperties: true, properties: requestMembers },
      },
    },
    async (request, reply) => {
      const session = await requestSession(ctx, request, reply);
      const query = request.query as Record<string, string>;
      const uri = `openid4vp://?${new URLSearchParams(query)}`;
      const { pending } = await ctx.presentation.resolve(session, { uri });
      await ctx.presentation.issueIfMissing(session, pending, appPath(ctx, request));
      return reply
        .code(302)
        .header('location', `${appPath(ctx, request)}consent/${pending.id}`)
        .send();
    },
  );
};
