import { OAuthError } from '../errors.ts';
import { badRequest, scimBodyOf, scimError } from './errors.ts';
import { BULK_LIMITS } from './bulk-limits.ts';
import { isRecord, type Document } from './input.ts';
import { etagOf } from './render.ts';
import { resourceTypeAt, type ResourceType } from './resource-types.ts';
import type { ScimService } from './service.ts';

const BULK_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
const BULK_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:BulkResponse';

interface BulkOperation {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  bulkId?: string;
  version?: string;
  path: string;
  data?: unknown;
}

const BULK_REF = /^bulkId:(.+)$/;

/** RFC 7644 §3.7: the request's operations, checked before any runs; over the limits is 413 (§3.7.4). */
export function readBulkRequest(body: unknown): { failOnErrors?: number; operations: BulkOperation[] } {
  if (!isRecord(body) || !Array.isArray(body.schemas) || !body.schemas.includes(BULK_REQUEST))
    throw badRequest('invalidSyntax', `schemas must name ${BULK_REQUEST} (RFC 7644 §3.7)`);
  const ops = body.Operations;
  if (!Array.isArray(ops) || ops.length === 0)
    throw badRequest('invalidSyntax', 'Operations must be a non-empty array');
  if (ops.length > BULK_LIMITS.maxOperations)
    throw scimError(413, `A bulk request has at most ${BULK_LIMITS.maxOperations} operations (RFC 7644 §3.7.4)`);
  const failOnErrors = body.failOnErrors;
  if (failOnErrors !== undefined && (!Number.isSafeInteger(failOnErrors) || (failOnErrors as number) < 1))
    throw badRequest('invalidValue', 'failOnErrors must be a positive integer');
  const bulkIds = new Set<string>();
  const operations = ops.map((o, i): BulkOperation => {
    if (!isRecord(o)) throw badRequest('invalidSyntax', `Operations[${i}] must be an object`);
    const method = typeof o.method === 'string' ? o.method.toUpperCase() : '';
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(method))
      throw badRequest('invalidSyntax', `Operations[${i}].method must be POST, PUT, PATCH or DELETE`);
    if (typeof o.path !== 'string') throw badRequest('invalidSyntax', `Operations[${i}].path is required`);
    if (method === 'POST' && typeof o.bulkId !== 'string')
      throw badRequest('invalidSyntax', `Operations[${i}]: a POST needs a bulkId (RFC 7644 §3.7)`);
    if (typeof o.bulkId === 'string') {
      if (bulkIds.has(o.bulkId)) throw badRequest('invalidValue', `bulkId ${o.bulkId} is used twice`);
      bulkIds.add(o.bulkId);
    }
    if (o.version !== undefined && typeof o.version !== 'string')
      throw badRequest('invalidSyntax', `Operations[${i}].version must be a string`);
    return {
      method: method as BulkOperation['method'],
      bulkId: o.bulkId as string | undefined,
      version: o.version as string | undefined,
      path: o.path,
      data: o.data,
    };
  });
  return { failOnErrors: failOnErrors as number | undefined, operations };
}

/**
 * Runs a bulk request in order (RFC 7644 §3.7.1-3): `bulkId:` references in paths and data become
 * the ids of resources created earlier in the request; an operation whose reference is not created
 * yet waits for a later pass, and one that never resolves (a circle, or a failed POST) fails with 409.
 */
export async function runBulk(
  service: ScimService,
  tenant: string,
  request: ReturnType<typeof readBulkRequest>,
): Promise<Document> {
  const created = new Map<string, string>();
  const results = new Map<number, Document>();
  let errors = 0;
  let pending = request.operations.map((op, index) => ({ op, index }));
  while (pending.length > 0) {
    const waiting: typeof pending = [];
    for (const { op, index } of pending) {
      if (request.failOnErrors !== undefined && errors >= request.failOnErrors) break;
      const refs = referencesOf(op);
      if (refs.some((r) => !created.has(r))) {
        waiting.push({ op, index });
        continue;
      }
      const result = await runOne(service, tenant, resolve(op, created) as BulkOperation, op);
      if (op.bulkId && typeof result.id === 'string') created.set(op.bulkId, result.id);
      delete result.id;
      if (Number(result.status) >= 400) errors++;
      results.set(index, result);
    }
    if (waiting.length === pending.length || (request.failOnErrors !== undefined && errors >= request.failOnErrors)) {
      if (request.failOnErrors === undefined || errors < request.failOnErrors)
        for (const { op, index } of waiting) {
          const error = scimError(
            409,
            `A bulkId this operation names (${referencesOf(op).join(', ')}) was not created in this request`,
            'invalidValue',
          );
          results.set(index, outcome(op, 409, scimBodyOf(error)));
        }
      break;
    }
    pending = waiting;
  }
  return { schemas: [BULK_RESPONSE], Operations: [...results.entries()].sort(([a], [b]) => a - b).map(([, r]) => r) };
}

async function runOne(
  service: ScimService,
  tenant: string,
  op: BulkOperation,
  original: BulkOperation,
): Promise<Document> {
  try {
    const [, endpoint, id, ...rest] = op.path.split('/');
    const type = resourceTypeAt(`/${endpoint}`);
    if (!type || rest.length > 0 || (op.method === 'POST') !== (id === undefined))
      throw badRequest('invalidPath', `${original.path} is not a path for ${op.method} (RFC 7644 §3.7)`);
    return await apply(service, tenant, type, op, id);
  } catch (e) {
    if (!(e instanceof OAuthError) || e.status >= 500) throw e;
    return outcome(original, e.status, scimBodyOf(e));
  }
}

async function apply(
  service: ScimService,
  tenant: string,
  type: ResourceType,
  op: BulkOperation,
  id: string | undefined,
): Promise<Document> {
  if (op.method === 'DELETE') {
    await service.remove(tenant, type, id!, op.version);
    return outcome(op, 204, undefined, `${service.base}${type.endpoint}/${id}`);
  }
  const stored =
    op.method === 'POST'
      ? await service.create(tenant, type, op.data)
      : op.method === 'PUT'
        ? await service.replace(tenant, type, id!, op.data, op.version)
        : await service.patch(tenant, type, id!, op.data, op.version);
  return {
    ...outcome(op, op.method === 'POST' ? 201 : 200, undefined, `${service.base}${type.endpoint}/${stored.id}`),
    version: etagOf(stored.version),
    id: stored.id,
  };
}

function outcome(op: BulkOperation, status: number, response?: Document, location?: string): Document {
  return {
    method: op.method,
    ...(op.bulkId ? { bulkId: op.bulkId } : {}),
    ...(location ? { location } : {}),
    status: String(status),
    ...(response ? { response } : {}),
  };
}

/** Every `bulkId:<id>` an operation names, in its path or as a string anywhere in its data. */
function referencesOf(op: BulkOperation): string[] {
  const found = new Set<string>();
  const visit = (v: unknown) => {
    if (typeof v === 'string') {
      for (const part of v.split('/')) {
        const m = BULK_REF.exec(part);
        if (m) found.add(m[1]);
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (isRecord(v)) Object.values(v).forEach(visit);
  };
  visit(op.path);
  visit(op.data);
  return [...found];
}

function resolve(v: unknown, created: ReadonlyMap<string, string>): unknown {
  if (typeof v === 'string')
    return v
      .split('/')
      .map((part) => part.replace(BULK_REF, (_, id: string) => created.get(id) ?? part))
      .join('/');
  if (Array.isArray(v)) return v.map((x) => resolve(x, created));
  if (isRecord(v)) {
    // The client's member names are kept on a null-prototype object: no name can reach a prototype.
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, x] of Object.entries(v)) out[k] = resolve(x, created);
    return out;
  }
  return v;
}
