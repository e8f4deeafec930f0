import { badRequest } from './errors.ts';
import type { Document } from './input.ts';
import { resourceTypeNamed, type ResourceType } from './resource-types.ts';

interface Existence {
  exists(tenant: string, type: ResourceType, id: string): Promise<boolean>;
}

/**
 * A group's members and an agent's owners name resources of the same tenant (RFC 7643 §4.2): each
 * `value` must be a live User or Group there (of the named `type`, when one is named), and a group is
 * never its own member.
 */
export async function checkReferences(
  resources: Existence,
  tenant: string,
  type: ResourceType,
  doc: Document,
): Promise<void> {
  const attribute = type.name === 'Group' ? 'members' : type.name === 'Agent' ? 'owners' : undefined;
  const refs = attribute && Array.isArray(doc[attribute]) ? (doc[attribute] as Document[]) : [];
  for (const ref of refs) {
    const value = ref.value;
    if (typeof value !== 'string')
      throw badRequest('invalidValue', `Each of ${attribute} needs a value (the id of a User or Group)`);
    if (type.name === 'Group' && value === doc.id) throw badRequest('invalidValue', 'A group cannot be its own member');
    const named = typeof ref.type === 'string' ? [ref.type] : ['User', 'Group'];
    let found = false;
    for (const name of named) {
      const t = resourceTypeNamed(name);
      if (t && t.name !== 'Agent' && (await resources.exists(tenant, t, value))) found = true;
    }
    if (!found)
      throw badRequest('invalidValue', `${attribute} names ${value}, which is no ${named.join(' or ')} of this tenant`);
  }
}
