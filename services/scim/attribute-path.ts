import { findAttribute, type AttributeDef } from './schema-types.ts';
import { attributesOf, schemasOf, type ResourceType } from './resource-types.ts';

/**
 * RFC 7644 §3.10: an attribute path, `[schema URI ":"] attrName ["." subAttr]`, resolved against a
 * resource type's schemas (names case-insensitive, RFC 7643 §2.1).
 */
export interface ResolvedPath {
  /** The extension schema holding the attribute; undefined for the core schema and the common attributes. */
  extension?: string;
  /** Undefined when the path names a whole extension (`urn:...:enterprise:2.0:User`). */
  attribute?: AttributeDef;
  sub?: AttributeDef;
}

const NAME = /^(?:\$ref|[A-Za-z][\w-]*)$/;

/** The path resolved, or a description of why it names nothing of this type. */
export function resolvePath(type: ResourceType, path: string): ResolvedPath | string {
  let extension: string | undefined;
  let rest = path;
  if (/^urn:/i.test(path)) {
    const schema = schemasOf(type).find(
      (s) => path.toLowerCase().startsWith(`${s.toLowerCase()}:`) || path.toLowerCase() === s.toLowerCase(),
    );
    if (!schema) return `${path} names no schema of the ${type.name} resource`;
    if (path.length === schema.length)
      return schema === type.schema ? `${path} names no attribute` : { extension: schema };
    extension = schema === type.schema ? undefined : schema;
    rest = path.slice(schema.length + 1);
  }
  const [name, subName, ...more] = rest.split('.');
  if (more.length > 0 || !NAME.test(name) || (subName !== undefined && !NAME.test(subName)))
    return `${path} is not an attribute path (RFC 7644 §3.10)`;
  const attribute = findAttribute(attributesOf(type, extension), name);
  if (!attribute)
    return `${name} is not an attribute of the ${type.name} resource${extension ? ` extension ${extension}` : ''}`;
  if (subName === undefined) return { extension, attribute };
  const sub = findAttribute(attribute.subAttributes, subName);
  if (!sub) return `${subName} is not a sub-attribute of ${attribute.name}`;
  return { extension, attribute, sub };
}

/** The attribute value a resolved path names in a resource (before any sub-attribute). */
export function containerOf(
  resource: Record<string, unknown>,
  path: ResolvedPath,
): Record<string, unknown> | undefined {
  if (!path.extension) return resource;
  const ext = resource[path.extension];
  return ext && typeof ext === 'object' && !Array.isArray(ext) ? (ext as Record<string, unknown>) : undefined;
}
