import { LIST_SCHEMA, type Page } from '../../../services/scim/query.ts';

/** RFC 7644 §3.4.2 (with RFC 9865 §2's cursors): a ListResponse of one page. */
export function listResponse(items: readonly unknown[], page?: Omit<Page, 'items'>): Record<string, unknown> {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: page?.totalResults ?? items.length,
    itemsPerPage: items.length,
    ...(page?.startIndex !== undefined || !page ? { startIndex: page?.startIndex ?? 1 } : {}),
    ...(page?.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    ...(page?.previousCursor !== undefined ? { previousCursor: page.previousCursor } : {}),
    Resources: items,
  };
}
