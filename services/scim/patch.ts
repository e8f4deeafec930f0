import { badRequest } from './errors.ts';
import { compileElementFilter } from './filter.ts';
import { readAttribute, requirePresent, type Document, isRecord } from './input.ts';
import { parsePatchPath, type PatchPath } from './patch-path.ts';
import { findAttribute, type AttributeDef } from './schema-types.ts';
import { extensionNamed, schemasOf, type ResourceType } from './resource-types.ts';

export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const MAX_OPERATIONS = 100;

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path?: string;
  value?: unknown;
}

/** RFC 7644 §3.5.2: the operations of a PATCH request, each checked before any is applied. */
export function readPatchRequest(body: unknown): PatchOperation[] {
  if (!isRecord(body)) throw badRequest('invalidSyntax', 'The request body must be a JSON object');
  if (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_SCHEMA))
    throw badRequest('invalidSyntax', `schemas must name ${PATCH_SCHEMA} (RFC 7644 §3.5.2)`);
  const ops = body.Operations;
  if (!Array.isArray(ops) || ops.length === 0)
    throw badRequest('invalidSyntax', 'Operations must be a non-empty array');
  if (ops.length > MAX_OPERATIONS)
    throw badRequest('invalidValue', `A PATCH has at most ${MAX_OPERATIONS} operations here`);
  return ops.map((o, i) => {
    if (!isRecord(o)) throw badRequest('invalidSyntax', `Operations[${i}] must be an object`);
    const op = typeof o.op === 'string' ? o.op.toLowerCase() : undefined;
    if (op !== 'add' && op !== 'remove' && op !== 'replace')
      throw badRequest('invalidSyntax', `Operations[${i}].op must be add, remove or replace`);
    if (o.path !== undefined && typeof o.path !== 'string')
      throw badRequest('invalidPath', `Operations[${i}].path must be a string`);
    if (op === 'remove' && o.path === undefined)
      throw badRequest('noTarget', `Operations[${i}]: remove needs a path (RFC 7644 §3.5.2.2)`);
    if (op !== 'remove' && o.value === undefined)
      throw badRequest('invalidValue', `Operations[${i}]: ${op} needs a value`);
    return { op, path: o.path as string | undefined, value: o.value };
  });
}

/**
 * The resource after the operations, applied in order to a copy (RFC 7644 §3.5.2: all or nothing).
 * `readOnly` targets are refused (`mutability`), as is a change to an `immutable` value already set.
 */
export function applyPatch(type: ResourceType, resource: Document, operations: readonly PatchOperation[]): Document {
  const doc = structuredClone(resource);
  for (const operation of operations) {
    if (operation.path === undefined) applyWithoutPath(type, doc, operation);
    else applyAtPath(type, doc, operation, parsePatchPath(type, operation.path));
  }
  doc.schemas = schemasOf(type).filter((s) => s === type.schema || doc[s] !== undefined);
  requirePresent(type, doc);
  return doc;
}

/** §3.5.2.1/§3.5.2.3 without a path: the value is an object of attributes, each added or replaced. */
function applyWithoutPath(type: ResourceType, doc: Document, operation: PatchOperation): void {
  if (!isRecord(operation.value))
    throw badRequest('invalidValue', `${operation.op} without a path takes an object of attributes`);
  for (const [key, value] of Object.entries(operation.value)) {
    if (key === 'schemas') continue;
    const extension = extensionNamed(type, key);
    if (extension) {
      if (!isRecord(value)) throw badRequest('invalidValue', `${key} must be an object`);
      for (const [name, inner] of Object.entries(value)) {
        const path = parsePatchPath(type, `${extension}:${name}`);
        applyAtPath(type, doc, { ...operation, value: inner }, path);
      }
      continue;
    }
    applyAtPath(type, doc, { ...operation, value }, parsePatchPath(type, key));
  }
}

function containerFor(doc: Document, path: PatchPath, create: boolean): Document | undefined {
  if (!path.extension) return doc;
  if (!isRecord(doc[path.extension]) && create) doc[path.extension] = {};
  return doc[path.extension] as Document | undefined;
}

function applyAtPath(type: ResourceType, doc: Document, operation: PatchOperation, path: PatchPath): void {
  const attribute = path.attribute;
  if (!attribute) {
    // A whole extension (`urn:...:enterprise:2.0:User`): its sub-attributes, or all of it removed.
    if (operation.op === 'remove') delete doc[path.extension!];
    else applyWithoutPath(type, doc, { ...operation, path: undefined, value: { [path.extension!]: operation.value } });
    return;
  }
  const where = operation.path ?? attribute.name;
  const target = path.sub ?? attribute;
  if (target.mutability === 'readOnly' || attribute.mutability === 'readOnly')
    throw badRequest('mutability', `${where} is readOnly (RFC 7643 §7)`);
  const container = containerFor(doc, path, operation.op !== 'remove');
  if (!container) return;
  if (path.selector) return applyToSelected(type, container, operation, path, where);
  if (operation.op === 'remove') {
    if (attribute.required && !path.sub) throw badRequest('mutability', `${where} is required and cannot be removed`);
    removeAt(container, attribute, path.sub);
    return;
  }
  if (path.sub) return setSub(container, attribute, path.sub, operation, where);
  const value = readAttribute(
    attribute,
    attribute.multiValued && !Array.isArray(operation.value) ? [operation.value] : operation.value,
    where,
  );
  if (value === undefined) return;
  guardImmutable(attribute, container[attribute.name], value, where);
  const current = container[attribute.name];
  if (attribute.multiValued && operation.op === 'add' && Array.isArray(current)) {
    container[attribute.name] = mergeValues(current, value as unknown[]);
  } else if (attribute.type === 'complex' && !attribute.multiValued && isRecord(current) && isRecord(value)) {
    container[attribute.name] = { ...current, ...value };
  } else {
    container[attribute.name] = value;
  }
  clearExtraPrimary(container, attribute, value);
}

/** A sub-attribute of a single-valued complex attribute (`name.givenName`), or of every element. */
function setSub(
  container: Document,
  attribute: AttributeDef,
  sub: AttributeDef,
  operation: PatchOperation,
  where: string,
): void {
  const value = readAttribute(sub, operation.value, where);
  if (attribute.multiValued) {
    const elements = Array.isArray(container[attribute.name]) ? (container[attribute.name] as Document[]) : [];
    if (elements.length === 0) throw badRequest('noTarget', `${where}: ${attribute.name} has no values`);
    for (const e of elements) {
      guardImmutable(sub, e[sub.name], value, where);
      e[sub.name] = value;
    }
    return;
  }
  const current = isRecord(container[attribute.name]) ? (container[attribute.name] as Document) : {};
  guardImmutable(sub, current[sub.name], value, where);
  container[attribute.name] = { ...current, [sub.name]: value };
}

function applyToSelected(
  type: ResourceType,
  container: Document,
  operation: PatchOperation,
  path: PatchPath,
  where: string,
): void {
  const attribute = path.attribute!;
  const matches = compileElementFilter(type, attribute, path.selector!.filter);
  const elements = Array.isArray(container[attribute.name]) ? (container[attribute.name] as Document[]) : [];
  const selected = elements.filter((e) => matches(e));
  // RFC 7644 §3.5.2.3 for replace, and here for remove and add too: a value filter that selects nothing is 400 noTarget.
  if (selected.length === 0) throw badRequest('noTarget', `${where} matches no value (RFC 7644 §3.5.2)`);
  if (operation.op === 'remove') {
    if (path.sub) for (const e of selected) delete e[path.sub.name];
    else container[attribute.name] = elements.filter((e) => !selected.includes(e));
    if (Array.isArray(container[attribute.name]) && (container[attribute.name] as unknown[]).length === 0)
      delete container[attribute.name];
    return;
  }
  if (path.sub) {
    const value = readAttribute(path.sub, operation.value, where);
    for (const e of selected) {
      guardImmutable(path.sub, e[path.sub.name], value, where);
      e[path.sub.name] = value;
    }
    return;
  }
  const value = readAttribute({ ...attribute, multiValued: false }, operation.value, where) as Document;
  for (const e of selected) {
    for (const sub of attribute.subAttributes ?? [])
      guardImmutable(sub, e[sub.name], value[sub.name] ?? e[sub.name], where);
    const index = elements.indexOf(e);
    elements[index] = operation.op === 'add' ? { ...e, ...value } : value;
  }
  clearExtraPrimary(container, attribute, value);
}

function removeAt(container: Document, attribute: AttributeDef, sub: AttributeDef | undefined): void {
  if (!sub) {
    delete container[attribute.name];
    return;
  }
  const current = container[attribute.name];
  for (const e of (Array.isArray(current) ? current : [current]).filter(isRecord)) delete e[sub.name];
}

/** RFC 7643 §7 `immutable`: set once, then only the same value. */
function guardImmutable(def: AttributeDef, current: unknown, next: unknown, where: string): void {
  if (def.mutability !== 'immutable' || current === undefined) return;
  if (JSON.stringify(current) !== JSON.stringify(next))
    throw badRequest('mutability', `${where} is immutable: once set it cannot change (RFC 7643 §7)`);
}

/** §3.5.2.1: values added to a multi-valued attribute join it; an equal value is not added twice. */
function mergeValues(current: unknown[], added: unknown[]): unknown[] {
  const seen = new Set(current.map((v) => JSON.stringify(v)));
  return [...current, ...added.filter((v) => !seen.has(JSON.stringify(v)))];
}

/** RFC 7643 §2.4: a value made primary takes the flag from any other. */
function clearExtraPrimary(container: Document, attribute: AttributeDef, written: unknown): void {
  if (!attribute.multiValued || !findAttribute(attribute.subAttributes, 'primary')) return;
  const candidates: unknown[] = Array.isArray(written) ? written : [written];
  const newPrimary = candidates.find((v) => isRecord(v) && v.primary === true);
  const values = container[attribute.name];
  if (!newPrimary || !Array.isArray(values)) return;
  for (const v of values)
    if (isRecord(v) && v !== newPrimary && v.primary === true && JSON.stringify(v) !== JSON.stringify(newPrimary))
      v.primary = false;
}
