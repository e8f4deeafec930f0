import { OAuthError } from '../errors.ts';
import { badRequest } from './errors.ts';
import { parseFilter, type ScimFilter } from './filter.ts';
import { readResource, type Document, isRecord } from './input.ts';
import { applyPatch, PATCH_SCHEMA, readPatchRequest } from './patch.ts';
import { parsePatchPath } from './patch-path.ts';
import { attributesOf, RESOURCE_TYPES, resourceTypeNamed, type ResourceType } from './resource-types.ts';
import type { AttributeDef } from './schema-types.ts';

/**
 * The looking glass on SCIM (RFC 7643, RFC 7644): a resource with each attribute's definition, a
 * PATCH request operation by operation (what each changes, on a resource when one is given), and a
 * filter as its syntax tree. Pure: nothing is stored.
 */
export interface ScimDecodeInput {
  resource?: unknown;
  patch?: unknown;
  filter?: string;
  resource_type?: string;
}

/** What an attribute's definition says (RFC 7643 §7). */
interface AttributeMeaning {
  type?: string;
  multi_valued?: boolean;
  mutability?: string;
  returned?: string;
  uniqueness?: string;
  meaning?: string;
}

interface DecodedResource {
  format: 'scim-resource';
  resource_type: string;
  schemas: unknown;
  attributes: Array<{ path: string; value: unknown } & AttributeMeaning>;
  warnings: string[];
}

interface ExplainedOperation {
  op: string;
  path?: string;
  value?: unknown;
  target: {
    attribute: string | null;
    extension?: string;
    filter?: string;
    filter_ast?: ScimFilter;
    sub_attribute?: string;
  } & AttributeMeaning;
  changes?: Array<{ attribute: string; before: unknown; after: unknown }>;
  refused?: Record<string, unknown>;
}

interface DecodedPatch {
  format: 'scim-patch';
  schemas: string[];
  resource_type: string;
  operations: ExplainedOperation[];
  result?: Document;
}

interface DecodedFilter {
  format: 'scim-filter';
  resource_type: string;
  filter: string;
  ast: ScimFilter;
  attributes: Array<{ path: string; unknown?: string } & AttributeMeaning>;
}

export type DecodedScim = DecodedResource | DecodedPatch | DecodedFilter;

const describe = (d: AttributeDef): AttributeMeaning => ({
  type: d.type,
  multi_valued: d.multiValued,
  mutability: d.mutability,
  returned: d.returned,
  ...(d.uniqueness !== 'none' ? { uniqueness: d.uniqueness } : {}),
  meaning: d.description,
});

/** The resource type a resource names in `schemas`, or the one asked for, or User. */
function typeOf(input: ScimDecodeInput, resource?: unknown): ResourceType {
  if (input.resource_type !== undefined) {
    const named = resourceTypeNamed(input.resource_type);
    if (!named)
      throw badRequest('invalidValue', `resource_type is one of ${RESOURCE_TYPES.map((t) => t.name).join(', ')}`);
    return named;
  }
  const schemas = isRecord(resource) && Array.isArray(resource.schemas) ? resource.schemas : [];
  return RESOURCE_TYPES.find((t) => schemas.includes(t.schema)) ?? RESOURCE_TYPES[0];
}

export function decodeScim(input: ScimDecodeInput): DecodedScim {
  if (input.patch !== undefined) return decodePatch(input);
  if (input.resource !== undefined) return decodeResource(typeOf(input, input.resource), input.resource);
  if (typeof input.filter === 'string') return decodeFilter(typeOf(input), input.filter);
  throw badRequest('invalidSyntax', 'Give a resource, a patch (PatchOp) or a filter');
}

/** Each attribute with its definition; what the service provider would refuse or ignore, as warnings. */
function decodeResource(type: ResourceType, resource: unknown): DecodedResource {
  if (!isRecord(resource)) throw badRequest('invalidSyntax', 'resource must be a JSON object');
  const warnings: string[] = [];
  try {
    readResource(type, resource, 'x');
  } catch (e) {
    if (!(e instanceof OAuthError)) throw e;
    warnings.push(e.description);
  }
  const attributes: DecodedResource['attributes'] = [];
  for (const [name, value] of Object.entries(resource)) {
    if (name === 'schemas') continue;
    const extension = type.extensions.find((x) => x.schema.toLowerCase() === name.toLowerCase());
    const defs = extension ? attributesOf(type, extension.schema) : attributesOf(type);
    const entries = extension && isRecord(value) ? Object.entries(value) : [[name, value] as const];
    for (const [inner, v] of entries) {
      const def = defs.find((d) => d.name.toLowerCase() === String(inner).toLowerCase());
      const path = extension ? `${extension.schema}:${inner}` : String(inner);
      if (!def) warnings.push(`${path} is not an attribute of ${type.name}`);
      else if (def.mutability === 'readOnly' && path !== 'id' && path !== 'meta')
        warnings.push(`${path} is readOnly: ignored on write (RFC 7643 §7)`);
      attributes.push({ path, value: v, ...(def ? describe(def) : {}) });
    }
  }
  return { format: 'scim-resource', resource_type: type.name, schemas: resource.schemas ?? [], attributes, warnings };
}

/** Each operation: its target (attribute, filter, sub-attribute) and, on a given resource, what it changed. */
function decodePatch(input: ScimDecodeInput): DecodedPatch {
  const type = typeOf(input, input.resource);
  const operations = readPatchRequest(input.patch);
  let current = isRecord(input.resource) ? (input.resource as Document) : undefined;
  const explained = operations.map((operation): ExplainedOperation => {
    const target = operation.path === undefined ? undefined : parsePatchPath(type, operation.path);
    const entry: ExplainedOperation = {
      op: operation.op,
      ...(operation.path !== undefined ? { path: operation.path } : {}),
      ...(operation.value !== undefined ? { value: operation.value } : {}),
      target: target
        ? {
            attribute: target.attribute?.name ?? null,
            ...(target.extension ? { extension: target.extension } : {}),
            ...(target.selector ? { filter: target.selector.text, filter_ast: target.selector.filter } : {}),
            ...(target.sub ? { sub_attribute: target.sub.name } : {}),
            ...(target.attribute ? describe(target.sub ?? target.attribute) : {}),
          }
        : {
            attribute: null,
            meaning: 'No path: the value is an object of attributes, each added or replaced (RFC 7644 §3.5.2)',
          },
    };
    if (!current) return entry;
    try {
      const after = applyPatch(type, current, [operation]);
      entry.changes = changesBetween(current, after);
      current = after;
    } catch (e) {
      if (!(e instanceof OAuthError)) throw e;
      entry.refused = e.toJSON();
      current = undefined;
    }
    return entry;
  });
  return {
    format: 'scim-patch',
    schemas: [PATCH_SCHEMA],
    resource_type: type.name,
    operations: explained,
    ...(current ? { result: current } : {}),
  };
}

/** The top-level attributes that differ, each with its value before and after. */
function changesBetween(before: Document, after: Document) {
  const names = new Set([...Object.keys(before), ...Object.keys(after)].filter((n) => n !== 'schemas'));
  return [...names]
    .filter((n) => JSON.stringify(before[n]) !== JSON.stringify(after[n]))
    .map((n) => ({ attribute: n, before: before[n] ?? null, after: after[n] ?? null }));
}

/** The filter's syntax tree, and each attribute path it names with its definition. */
function decodeFilter(type: ResourceType, filter: string): DecodedFilter {
  const ast = parseFilter(filter);
  const paths = new Set<string>();
  const walk = (f: ScimFilter, within?: string) => {
    if ('filters' in f) f.filters.forEach((x) => walk(x, within));
    else if (f.op === 'not') walk(f.filter, within);
    else if (f.op === '[]') {
      paths.add(f.attrPath);
      walk(f.valFilter, f.attrPath);
    } else paths.add(within ? `${within}.${f.attrPath}` : f.attrPath);
  };
  walk(ast);
  const attributes = [...paths].map((path): DecodedFilter['attributes'][number] => {
    try {
      const resolved = parsePatchPath(type, path);
      const def = resolved.sub ?? resolved.attribute;
      return { path, ...(def ? describe(def) : {}) };
    } catch (e) {
      if (!(e instanceof OAuthError)) throw e;
      return { path, unknown: e.description };
    }
  });
  return { format: 'scim-filter', resource_type: type.name, filter, ast, attributes };
}
