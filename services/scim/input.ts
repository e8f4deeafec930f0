import { sha256 } from '../crypto/random.ts';
import { badRequest } from './errors.ts';
import { findAttribute, type AttributeDef } from './schema-types.ts';
import { attributesOf, extensionNamed, schemasOf, type ResourceType } from './resource-types.ts';

/**
 * A resource as a client wrote it (POST, PUT, or the result of a PATCH), checked against its schemas
 * (RFC 7643 §2, §7) and stored by canonical names: `readOnly` attributes ignored (RFC 7643 §7), types
 * checked, `required` ones present, at most one `primary` value (§2.4), a password kept only as its hash.
 */
export type Document = Record<string, unknown>;

const MAX_VALUES = 100;
const MAX_STRING = 2_048;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A JSON object (not an array, not null): what a resource or one of its complex values is. */
export const isRecord = (v: unknown): v is Document => !!v && typeof v === 'object' && !Array.isArray(v);

/** The stored form of a resource written by a client; `id` is the service provider's. */
export function readResource(type: ResourceType, body: unknown, id: string): Document {
  if (!isRecord(body)) throw badRequest('invalidSyntax', 'The request body must be a JSON object (RFC 7644 §3.3)');
  const schemas = body.schemas;
  if (
    !Array.isArray(schemas) ||
    !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === type.schema.toLowerCase())
  )
    throw badRequest('invalidSyntax', `schemas must name ${type.schema} (RFC 7643 §3)`);
  for (const s of schemas)
    if (typeof s !== 'string' || !schemasOf(type).some((known) => known.toLowerCase() === s.toLowerCase()))
      throw badRequest('invalidValue', `${String(s)} is not a schema of the ${type.name} resource`);
  const doc: Document = { id };
  for (const [key, value] of Object.entries(body)) {
    if (key === 'schemas' || value === null || value === undefined) continue;
    const extension = extensionNamed(type, key);
    if (extension) {
      const inner = readComplex(attributesOf(type, extension), value, extension);
      if (Object.keys(inner).length > 0) doc[extension] = inner;
      continue;
    }
    const def = findAttribute(attributesOf(type), key);
    if (!def) throw badRequest('invalidSyntax', `${key} is not an attribute of the ${type.name} resource`);
    if (def.mutability === 'readOnly') continue;
    const read = readAttribute(def, value, def.name);
    if (read !== undefined) doc[def.name] = read;
  }
  doc.schemas = [type.schema, ...type.extensions.map((e) => e.schema).filter((s) => doc[s] !== undefined)];
  requirePresent(type, doc);
  return doc;
}

/** RFC 7643 §2.2: `required` attributes of the core schema must have a value. */
export function requirePresent(type: ResourceType, doc: Document): void {
  for (const def of attributesOf(type))
    if (def.required && (doc[def.name] === undefined || doc[def.name] === ''))
      throw badRequest('invalidValue', `${def.name} is required (RFC 7643 §2.2)`);
}

function readComplex(defs: readonly AttributeDef[], value: unknown, where: string): Document {
  if (!isRecord(value)) throw badRequest('invalidValue', `${where} must be a JSON object`);
  const out: Document = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === null || inner === undefined) continue;
    const def = findAttribute(defs, key);
    if (!def) throw badRequest('invalidSyntax', `${key} is not a sub-attribute of ${where}`);
    if (def.mutability === 'readOnly') continue;
    const read = readAttribute(def, inner, `${where}.${def.name}`);
    if (read !== undefined) out[def.name] = read;
  }
  return out;
}

/** One attribute's value checked by its definition, in its stored form. */
export function readAttribute(def: AttributeDef, value: unknown, where: string): unknown {
  if (!def.multiValued) return readSingle(def, value, where);
  if (!Array.isArray(value)) throw badRequest('invalidValue', `${where} is multi-valued: send an array`);
  if (value.length > MAX_VALUES) throw badRequest('invalidValue', `${where} has at most ${MAX_VALUES} values here`);
  const values = value.filter((v) => v !== null).map((v, i) => readSingle(def, v, `${where}[${i}]`));
  if (values.filter((v) => isRecord(v) && v.primary === true).length > 1)
    throw badRequest('invalidValue', `At most one value of ${where} may be primary (RFC 7643 §2.4)`);
  return values.length > 0 ? values : undefined;
}

function readSingle(def: AttributeDef, value: unknown, where: string): unknown {
  const refuse = (what: string) => badRequest('invalidValue', `${where} must be ${what} (RFC 7643 §2.3)`);
  switch (def.type) {
    case 'complex':
      return readComplex(def.subAttributes ?? [], value, where);
    case 'boolean':
      if (typeof value !== 'boolean') throw refuse('true or false');
      return value;
    case 'integer':
      if (!Number.isSafeInteger(value)) throw refuse('an integer');
      return value;
    case 'decimal':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw refuse('a number');
      return value;
    case 'dateTime':
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw refuse('an xsd:dateTime');
      return value;
    case 'binary':
      if (typeof value !== 'string' || !BASE64.test(value) || value.length % 4 !== 0) throw refuse('base64');
      return value;
    default:
      if (typeof value !== 'string') throw refuse('a string');
      if (value.length > MAX_STRING)
        throw badRequest('invalidValue', `${where} has at most ${MAX_STRING} characters here`);
      if (def.mutability === 'writeOnly') return passwordHash(value);
      return value;
  }
}

/** A write-only secret is never stored whole: its SHA-256, marked as such. */
const passwordHash = (secret: string) => `sha256:${sha256(secret)}`;
