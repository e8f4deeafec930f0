import type { ImportBody, IssueBody } from '../../../services/wallet/issuance/service.ts';
import type { WalletRoutes } from './context.ts';
import { requestSession } from './request-session.ts';
import { appPath, exchangeErrorResponse, resultResponse } from './route-shared.ts';

const errorResponse = exchangeErrorResponse;

/** `POST /api/issue`, `POST /api/import`, `GET /api/oid4vci/callback` (decisions section 10). */
export const issuanceRoutes: WalletRoutes = (app, ctx) => {
  app.post(
    '/api/issue',
    {
      schema: {
        summary: 'Bootstrap issuance from the configured issuer (cached unless "force")',
        body: {
          type: 'object',
          nullable: true,
          additionalProperties: false,
          properties: {
            credential_configuration_id: { type: 'string', maxLength: 200 },
            credential_format: {
              type: 'string',
              enum: ['mso_mdoc', 'dc+sd-jwt', 'jwt_vc_json', 'jwt_vc_json-ld', 'ldp_vc'],
            },
            tx_code: { anyOf: [{ type: 'boolean' }, { type: 'string', maxLength: 20 }] },
            deferred: { type: 'boolean' },
            force: { type: 'boolean' },
          },
        },
        response: { 200: resultResponse, 400: errorResponse, 403: errorResponse, 502: errorResponse },
      },
    },
    async (request, reply) =>
      ctx.issuance.issue(
        await requestSession(ctx, request, reply),
        (request.body ?? {}) as IssueBody,
        appPath(ctx, request),
      ),
  );

  app.post(
    '/api/import',
    {
      schema: {
        summary:
          'Import an offer, a raw credential, start wallet-initiated issuance, or authorize for a protected resource',
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            offer: { anyOf: [{ type: 'string', maxLength: 16_384 }, { type: 'object' }] },
            credential: { anyOf: [{ type: 'string', maxLength: 60_000 }, { type: 'object' }] },
            format: { type: 'string', enum: ['mso_mdoc', 'dc+sd-jwt', 'jwt_vc_json', 'jwt_vc_json-ld', 'ldp_vc'] },
            credential_issuer: { type: 'string', maxLength: 2000 },
            credential_configuration_id: { type: 'string', maxLength: 200 },
            discovery_url: { type: 'string', maxLength: 2000 },
            resource_endpoint: { type: 'string', maxLength: 2000 },
            scope: { type: 'string', maxLength: 500 },
            tx_code: { type: 'string', maxLength: 20 },
          },
        },
        response: { 200: resultResponse, 400: errorResponse, 403: errorResponse, 502: errorResponse },
      },
    },
    async (request, reply) =>
      ctx.issuance.import(await requestSession(ctx, request, reply), request.body as ImportBody, appPath(ctx, request)),
  );

  app.get(
    '/api/oid4vci/callback',
    {
      schema: {
        summary: 'OID4VCI authorization callback: redeems the code, then redirects to the app with oid4vci_status',
        querystring: {
          type: 'object',
          properties: Object.fromEntries(
            ['code', 'state', 'iss', 'error', 'error_description'].map((k) => [k, { type: 'string', maxLength: 2000 }]),
          ),
        },
      },
    },
    async (request, reply) => {
      const location = await ctx.issuance.callback(request.query as Record<string, string | undefined>, (id) =>
        ctx.sessions.peek(id),
      );
      return reply.code(302).header('location', location).send();
    },
  );
};
