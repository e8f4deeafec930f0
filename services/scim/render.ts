import type { ScimRow } from '../../projections/scim-resources.ts';
import type { Document } from './input.ts';
import { attributesOf, resourceTypeNamed, type ResourceType } from './resource-types.ts';
import type { AttributeDef } from './schema-types.ts';

/** A resource as stored with its stream's version and times: what rendering needs. */
export interface StoredResource {
  type: ResourceType;
  id: string;
  version: number;
  created: number;
  lastModified: number;
  doc: Document;
}

export const storedOf = (row: ScimRow): StoredResource => ({
  type: resourceTypeNamed(row.resource_type)!,
  id: row.id,
  version: Number(row.version),
  created: Number(row.created),
  lastModified: Number(row.last_modified),
  doc: JSON.parse(row.data) as Document,
});

/** RFC 7644 §3.14: a weak entity tag, the resource's stream version. */
export const etagOf = (version: number) => `W/"${version}"`;

/** The tenant's resources a rendering reads: group memberships and member names. */
export interface Neighbours {
  users: readonly StoredResource[];
  groups: readonly StoredResource[];
}

/**
 * A resource as the service provider answers it (RFC 7643 §3.1): its attributes less those `returned:
 * never`, `meta` from its stream, a user's `groups` (direct and indirect, RFC 7643 §4.1.2) and each
 * group member's `$ref`, `display` and `type`.
 */
export function render(base: string, r: StoredResource, around: Neighbours): Document {
  const { schemas, id, ...rest } = withoutNever(attributesOf(r.type), r.doc, r.type);
  const out: Document = { schemas, id, ...rest };
  const location = `${base}${r.type.endpoint}/${r.id}`;
  if (r.type.name === 'User') {
    const groups = groupsOf(base, r.id, around.groups);
    if (groups.length > 0) out.groups = groups;
  }
  if (r.type.name === 'Group' && Array.isArray(out.members))
    out.members = out.members.map((m: Document) => member(base, m, around));
  out.meta = {
    resourceType: r.type.name,
    created: new Date(r.created).toISOString(),
    lastModified: new Date(r.lastModified).toISOString(),
    location,
    version: etagOf(r.version),
  };
  return out;
}

function withoutNever(defs: readonly AttributeDef[], doc: Document, type: ResourceType): Document {
  const out: Document = {};
  for (const [key, value] of Object.entries(doc)) {
    const def = defs.find((d) => d.name === key);
    if (def?.returned === 'never') continue;
    if (!def && type.extensions.some((e) => e.schema === key) && value && typeof value === 'object')
      out[key] = withoutNever(attributesOf(type, key), value as Document, type);
    else out[key] = value;
  }
  return out;
}

function member(base: string, m: Document, around: Neighbours): Document {
  const user = around.users.find((u) => u.id === m.value);
  const group = user ? undefined : around.groups.find((g) => g.id === m.value);
  const found = user ?? group;
  if (!found) return m;
  return {
    ...m,
    $ref: `${base}${found.type.endpoint}/${found.id}`,
    display: (found.doc.displayName ?? found.doc.userName) as string | undefined,
    type: found.type.name,
  };
}

/** RFC 7643 §4.1.2: the groups holding the user, directly or through nested groups. */
function groupsOf(base: string, userId: string, groups: readonly StoredResource[]): Document[] {
  const holds = (g: StoredResource, id: string) =>
    Array.isArray(g.doc.members) && (g.doc.members as Document[]).some((m) => m.value === id);
  const direct = groups.filter((g) => holds(g, userId));
  const seen = new Map(direct.map((g) => [g.id, 'direct']));
  for (let frontier = direct; frontier.length > 0;) {
    const next = groups.filter((g) => !seen.has(g.id) && frontier.some((f) => holds(g, f.id)));
    for (const g of next) seen.set(g.id, 'indirect');
    frontier = next;
  }
  return groups
    .filter((g) => seen.has(g.id))
    .map((g) => ({ value: g.id, $ref: `${base}/Groups/${g.id}`, display: g.doc.displayName, type: seen.get(g.id) }));
}
