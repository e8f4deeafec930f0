import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readListQuery, readSearchRequest } from '../../../services/scim/query.ts';
import { etagOf, type StoredResource } from '../../../services/scim/render.ts';
import type { ResourceType } from '../../../services/scim/resource-types.ts';
import { listOf } from '../../../services/scim/selection.ts';
import type { ScimService } from '../../../services/scim/service.ts';
import { notModified } from '../../../services/scim/versions.ts';
import { listResponse } from './list-response.ts';

export const SCIM_MEDIA_TYPE = 'application/scim+json';

/** RFC 7644 §3.1: every answer is `application/scim+json`. */
export function sendScim(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type(`${SCIM_MEDIA_TYPE}; charset=utf-8`).send(body);
}

type Params = { Params: { id: string }; Querystring: Record<string, unknown> };
type TenantOf = (request: FastifyRequest) => Promise<string>;

const headerOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/**
 * One resource type's endpoint (RFC 7644 §3.3-3.6): list and create, `/.search`, and read, replace,
 * patch and delete by id, each answer with `Location` and `ETag` where it names one resource.
 */
export function scimResourceRoutes(
  app: FastifyInstance,
  path: string,
  type: ResourceType,
  service: ScimService,
  tenantOf: TenantOf,
): void {
  const sendResource = async (
    reply: FastifyReply,
    tenant: string,
    status: number,
    r: StoredResource,
    request: FastifyRequest<Params>,
  ) => {
    const body = await service.rendered(tenant, r, {
      attributes: listOf(request.query.attributes),
      excludedAttributes: listOf(request.query.excludedAttributes),
    });
    reply.header('etag', etagOf(r.version));
    if (status === 201) reply.header('location', (body.meta as { location: string }).location);
    return sendScim(reply, status, body);
  };

  app.get<Params>(path, async (request, reply) => {
    const tenant = await tenantOf(request);
    const page = await service.list(tenant, type, readListQuery(request.query));
    return sendScim(reply, 200, listResponse(page.items, page));
  });
  app.post<Params>(`${path}/.search`, async (request, reply) => {
    const tenant = await tenantOf(request);
    const page = await service.list(tenant, type, readSearchRequest(request.body));
    return sendScim(reply, 200, listResponse(page.items, page));
  });
  app.post<Params>(path, async (request, reply) => {
    const tenant = await tenantOf(request);
    return sendResource(reply, tenant, 201, await service.create(tenant, type, request.body), request);
  });
  app.get<Params>(`${path}/:id`, async (request, reply) => {
    const tenant = await tenantOf(request);
    const r = await service.get(tenant, type, request.params.id);
    // RFC 7644 §3.14: a copy that is still current is not sent again.
    if (notModified(headerOf(request.headers['if-none-match']), r.version))
      return reply.code(304).header('etag', etagOf(r.version)).send();
    return sendResource(reply, tenant, 200, r, request);
  });
  // PUT replaces (RFC 7644 §3.5.1), PATCH modifies (§3.5.2); both under If-Match (§3.14).
  for (const [method, change] of [
    ['PUT', service.replace.bind(service)],
    ['PATCH', service.patch.bind(service)],
  ] as const)
    app.route<Params>({
      method,
      url: `${path}/:id`,
      handler: async (request, reply) => {
        const tenant = await tenantOf(request);
        const ifMatch = headerOf(request.headers['if-match']);
        const changed = await change(tenant, type, request.params.id, request.body, ifMatch);
        return sendResource(reply, tenant, 200, changed, request);
      },
    });
  app.delete<Params>(`${path}/:id`, async (request, reply) => {
    const tenant = await tenantOf(request);
    await service.remove(tenant, type, request.params.id, headerOf(request.headers['if-match']));
    return reply.code(204).send();
  });
}
