import { badRequest } from './errors.ts';
import { resolvePath, type ResolvedPath } from './attribute-path.ts';
import { parseFilter, type ScimFilter } from './filter.ts';
import { findAttribute } from './schema-types.ts';
import type { ResourceType } from './resource-types.ts';

/**
 * RFC 7644 §3.5.2: a PATCH `path`, `attrPath` or `valuePath ["." subAttr]`, where a value path
 * selects the elements of a multi-valued attribute that match its filter (`emails[type eq "work"].value`).
 */
export interface PatchPath extends ResolvedPath {
  /** The filter selecting elements of a multi-valued complex attribute, with its source. */
  selector?: { filter: ScimFilter; text: string };
}

export function parsePatchPath(type: ResourceType, text: string): PatchPath {
  if (typeof text !== 'string' || text.length === 0 || text.length > 1_000)
    throw badRequest('invalidPath', 'path must be a non-empty string (RFC 7644 §3.5.2)');
  const open = text.indexOf('[');
  if (open < 0) return resolved(type, text);
  const close = text.lastIndexOf(']');
  if (close < open) throw badRequest('invalidPath', `${text}: a value filter opens "[" and closes "]"`);
  const tail = text.slice(close + 1);
  if (tail !== '' && !/^\.(?:\$ref|[A-Za-z][\w-]*)$/.test(tail))
    throw badRequest('invalidPath', `${text}: after "]" only ".subAttribute" may follow`);
  const path = resolved(type, text.slice(0, open));
  if (path.sub || path.attribute?.type !== 'complex' || !path.attribute.multiValued)
    throw badRequest('invalidPath', `${text}: a value filter selects elements of a multi-valued complex attribute`);
  const filterText = text.slice(open + 1, close);
  const selector = { filter: parseFilter(filterText), text: filterText };
  if (tail === '') return { ...path, selector };
  const sub = findAttribute(path.attribute.subAttributes, tail.slice(1));
  if (!sub) throw badRequest('invalidPath', `${tail.slice(1)} is not a sub-attribute of ${path.attribute.name}`);
  return { ...path, sub, selector };
}

function resolved(type: ResourceType, text: string): ResolvedPath {
  const path = resolvePath(type, text);
  if (typeof path === 'string') throw badRequest('invalidPath', path);
  return path;
}
