import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MainContext } from '../main/context.ts';
import { badRequest, scimError } from '../../../services/scim/errors.ts';
import { resourceTypes, schemaDocuments, serviceProviderConfig } from '../../../services/scim/discovery.ts';
import { readBulkRequest, runBulk } from '../../../services/scim/bulk.ts';
import { BULK_LIMITS } from '../../../services/scim/bulk-limits.ts';
import { readSearchRequest } from '../../../services/scim/query.ts';
import { RESOURCE_TYPES } from '../../../services/scim/resource-types.ts';
import { SCIM_MEDIA_TYPE, scimResourceRoutes, sendScim } from './resource-routes.ts';
import { listResponse } from './list-response.ts';
import { scimPages } from './tenant-page.ts';

const SCIM_PREFIX = '/scim/v2';

/**
 * The SCIM 2.0 service provider (RFC 7644, docs/scim.md) at `{base}/scim/v2`: discovery without a
 * token, and each resource type, `/.search` and `/Bulk` with an access token of `{base}/oauth2` whose
 * scope holds `scim`; the token's client is the tenant. Bodies are `application/scim+json` (or JSON).
 */
export async function scimRoutes(app: FastifyInstance, ctx: MainContext): Promise<void> {
  const base = ctx.config.baseUrl;
  const { service } = ctx.scim;
  const docs = `${base}/protocol/scim`;
  await app.register(async (scoped) => {
    scoped.addContentTypeParser(
      SCIM_MEDIA_TYPE,
      { parseAs: 'string', bodyLimit: BULK_LIMITS.maxPayloadSize },
      (_request, body, done) => {
        try {
          done(null, JSON.parse(body as string));
        } catch {
          done(badRequest('invalidSyntax', 'The request body is not JSON (RFC 7644 §3.1)'), undefined);
        }
      },
    );
    /** The tenant of the caller: an access token with scope `scim`; the tenant is seeded on first use. */
    const tenantOfRequest = (request: FastifyRequest) =>
      ctx.scim.tenant({
        authorization: request.headers.authorization,
        dpop: request.headers.dpop,
        method: request.method,
        url: `${base}${request.url.split('?')[0]}`,
      });

    scoped.get(`${SCIM_PREFIX}/ServiceProviderConfig`, (_request, reply) =>
      sendScim(reply, 200, serviceProviderConfig(service.base, docs)),
    );
    const types = resourceTypes(service.base);
    scoped.get(`${SCIM_PREFIX}/ResourceTypes`, (_request, reply) => sendScim(reply, 200, listResponse(types)));
    scoped.get<{ Params: { name: string } }>(`${SCIM_PREFIX}/ResourceTypes/:name`, (request, reply) => {
      const found = types.find((t) => t.id === request.params.name);
      if (!found) throw ScimNotFound(`No resource type ${request.params.name}`);
      return sendScim(reply, 200, found);
    });
    const schemas = schemaDocuments(service.base);
    scoped.get(`${SCIM_PREFIX}/Schemas`, (_request, reply) => sendScim(reply, 200, listResponse(schemas)));
    scoped.get<{ Params: { id: string } }>(`${SCIM_PREFIX}/Schemas/:id`, (request, reply) => {
      const found = schemas.find((s) => s.id === request.params.id);
      if (!found) throw ScimNotFound(`No schema ${request.params.id}`);
      return sendScim(reply, 200, found);
    });

    for (const type of RESOURCE_TYPES)
      scimResourceRoutes(scoped, `${SCIM_PREFIX}${type.endpoint}`, type, service, tenantOfRequest);

    // RFC 7644 §3.4.3: a search over every resource type of the tenant.
    scoped.post(`${SCIM_PREFIX}/.search`, async (request: FastifyRequest, reply: FastifyReply) => {
      const tenant = await tenantOfRequest(request);
      const page = await service.list(tenant, undefined, readSearchRequest(request.body));
      return sendScim(reply, 200, listResponse(page.items, page));
    });
    // RFC 7644 §3.7: bulk operations, within the advertised limits.
    scimPages(scoped, ctx);
    scoped.post(`${SCIM_PREFIX}/Bulk`, async (request: FastifyRequest, reply: FastifyReply) => {
      const tenant = await tenantOfRequest(request);
      return sendScim(reply, 200, await runBulk(service, tenant, readBulkRequest(request.body)));
    });
  });
}

const ScimNotFound = (detail: string) => scimError(404, detail);
