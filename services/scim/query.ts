import { sha256 } from '../crypto/random.ts';
import { badRequest } from './errors.ts';
import { compileFilter, valuesAt, type Resource } from './filter.ts';
import { resolvePath } from './attribute-path.ts';
import { listOf, type Selection } from './selection.ts';
import { RESOURCE_TYPES, type ResourceType } from './resource-types.ts';

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const SEARCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
/** Advertised in `/ServiceProviderConfig` (`filter.maxResults`, RFC 9865's `pagination`). */
export const MAX_RESULTS = 200;
export const DEFAULT_PAGE_SIZE = 100;

/** RFC 7644 §3.4.2 (query parameters) and §3.4.3 (a search request's members), with RFC 9865's cursor. */
export interface ListQuery extends Selection {
  filter?: string;
  sortBy?: string;
  sortOrder: 'ascending' | 'descending';
  startIndex?: number;
  count?: number;
  cursor?: string;
}

const integerOf = (value: unknown, name: string): number | undefined => {
  if (value === undefined || value === '') return undefined;
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw badRequest('invalidValue', `${name} must be an integer (RFC 7644 §3.4.2.4)`);
  return n;
};

const stringOf = (value: unknown, name: string): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest('invalidValue', `${name} must be a string`);
  return value;
};

/** A list query from the query string (`GET`) or a search request's body (`POST /.search`). */
export function readListQuery(source: Record<string, unknown>): ListQuery {
  const sortOrder = stringOf(source.sortOrder, 'sortOrder') ?? 'ascending';
  if (sortOrder !== 'ascending' && sortOrder !== 'descending')
    throw badRequest('invalidValue', 'sortOrder is ascending or descending (RFC 7644 §3.4.2.3)');
  const query: ListQuery = {
    filter: stringOf(source.filter, 'filter'),
    sortBy: stringOf(source.sortBy, 'sortBy'),
    sortOrder,
    startIndex: integerOf(source.startIndex, 'startIndex'),
    count: integerOf(source.count, 'count'),
    cursor: stringOf(source.cursor, 'cursor'),
    attributes: listOf(source.attributes),
    excludedAttributes: listOf(source.excludedAttributes),
  };
  if (query.cursor !== undefined && query.startIndex !== undefined)
    throw badRequest('invalidValue', 'Page by startIndex or by cursor, not both (RFC 9865 §2)');
  return query;
}

/** One page of a list, as RFC 7644 §3.4.2 (and RFC 9865 §2 for cursors) answers it. */
export interface Page {
  totalResults: number;
  items: Resource[];
  startIndex?: number;
  nextCursor?: string;
  previousCursor?: string;
}

/** Filters, sorts and pages rendered resources of one type. */
export function page(
  type: ResourceType | undefined,
  resources: Resource[],
  query: ListQuery,
  typeOf: (r: Resource) => ResourceType,
): Page {
  let matched = resources;
  if (query.filter !== undefined) {
    const tests = new Map<ResourceType, (r: Resource) => boolean>();
    // Across types, an attribute one type lacks is unassigned there; it must belong to some type.
    const testFor = (t: ResourceType) =>
      tests.get(t) ?? tests.set(t, compileFilter(t, query.filter!, type === undefined)).get(t)!;
    if (type) testFor(type);
    else if (!RESOURCE_TYPES.some((t) => compiles(t, query.filter!))) compileFilter(RESOURCE_TYPES[0], query.filter);
    matched = resources.filter((r) => testFor(typeOf(r))(r));
  }
  if (query.sortBy !== undefined) matched = sorted(matched, query.sortBy, query.sortOrder, typeOf);
  const count = Math.min(Math.max(query.count ?? DEFAULT_PAGE_SIZE, 0), MAX_RESULTS);
  if (query.cursor === undefined) {
    const startIndex = Math.max(query.startIndex ?? 1, 1);
    return { totalResults: matched.length, startIndex, items: matched.slice(startIndex - 1, startIndex - 1 + count) };
  }
  const fingerprint = fingerprintOf(query);
  const offset = query.cursor === '' ? 0 : offsetOf(query.cursor, fingerprint, matched.length);
  const items = matched.slice(offset, offset + count);
  const next = offset + count < matched.length ? cursorOf(offset + count, fingerprint) : undefined;
  const previous = offset > 0 ? cursorOf(Math.max(offset - count, 0), fingerprint) : undefined;
  return { totalResults: matched.length, items, nextCursor: next, previousCursor: previous };
}

/** RFC 9865: a cursor is opaque; ours names its offset and the query it pages, so it serves that query only. */
const fingerprintOf = (q: ListQuery) =>
  sha256(JSON.stringify([q.filter ?? '', q.sortBy ?? '', q.sortOrder])).slice(0, 12);

const cursorOf = (offset: number, fingerprint: string) => Buffer.from(`${offset}.${fingerprint}`).toString('base64url');

function offsetOf(cursor: string, fingerprint: string, total: number): number {
  const [offset, of] = Buffer.from(cursor, 'base64url').toString().split('.');
  if (of !== fingerprint || !/^\d{1,9}$/.test(offset ?? ''))
    throw badRequest('invalidCursor', 'The cursor is not one this query handed out (RFC 9865 §3)');
  if (Number(offset) > total)
    throw badRequest('expiredCursor', 'The cursor points past the results, which have changed (RFC 9865 §3)');
  return Number(offset);
}

/** RFC 7644 §3.4.2.3: by an attribute's value (a multi-valued one's primary value, else its first). */
function sorted(
  resources: Resource[],
  sortBy: string,
  order: string,
  typeOf: (r: Resource) => ResourceType,
): Resource[] {
  const keyOf = (r: Resource): unknown => {
    const path = resolvePath(typeOf(r), sortBy);
    if (typeof path === 'string') throw badRequest('invalidValue', `sortBy: ${path}`);
    if (!path.attribute) throw badRequest('invalidValue', 'sortBy names an attribute, not a schema');
    const values = valuesAt(r, path);
    const caseExact = (path.sub ?? path.attribute).caseExact;
    const value = values[0];
    return typeof value === 'string' && !caseExact ? value.toLowerCase() : value;
  };
  const keyed = resources.map((r) => [keyOf(r), r] as const);
  const direction = order === 'descending' ? -1 : 1;
  const compare = (a: unknown, b: unknown) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  // Resources without the attribute come last in either order.
  return keyed
    .sort(([a], [b]) =>
      a === undefined ? (b === undefined ? 0 : 1) : b === undefined ? -1 : direction * compare(a, b),
    )
    .map(([, r]) => r);
}

/** RFC 7644 §3.4.3: a SearchRequest body. */
export function readSearchRequest(body: unknown): ListQuery {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('invalidSyntax', 'A search request is a JSON object (RFC 7644 §3.4.3)');
  const request = body as Record<string, unknown>;
  if (!Array.isArray(request.schemas) || !request.schemas.includes(SEARCH_SCHEMA))
    throw badRequest('invalidSyntax', `schemas must name ${SEARCH_SCHEMA} (RFC 7644 §3.4.3)`);
  return readListQuery(request);
}

function compiles(type: ResourceType, filter: string): boolean {
  try {
    compileFilter(type, filter);
    return true;
  } catch {
    return false;
  }
}
