import { parse, type AttrExp, type Filter } from 'scim2-parse-filter';
import { badRequest } from './errors.ts';
import { containerOf, resolvePath, type ResolvedPath } from './attribute-path.ts';
import { findAttribute, type AttributeDef } from './schema-types.ts';
import type { ResourceType } from './resource-types.ts';
import { isRecord } from './input.ts';

/**
 * RFC 7644 §3.4.2.2: a filter, parsed into its syntax tree by `scim2-parse-filter`, checked against the
 * resource type's schemas, and evaluated by the attributes' types (`caseExact`, dateTime, numbers).
 */
export type ScimFilter = Filter;
export type Resource = Record<string, unknown>;
type Test = (resource: Resource) => boolean;

const MAX_FILTER_LENGTH = 2_000;
const MAX_DEPTH = 16;
const ORDERING = new Set(['gt', 'ge', 'lt', 'le']);
const SUBSTRING = new Set(['co', 'sw', 'ew']);

/** The syntax tree of a filter, or 400 `invalidFilter` saying why there is none. */
export function parseFilter(text: string): ScimFilter {
  if (text.length > MAX_FILTER_LENGTH)
    throw badRequest('invalidFilter', `A filter has at most ${MAX_FILTER_LENGTH} characters here`);
  if (/[([]/.test(text) && maxNesting(text) > MAX_DEPTH)
    throw badRequest('invalidFilter', `A filter nests at most ${MAX_DEPTH} levels here`);
  try {
    return parse(text);
  } catch (e) {
    throw badRequest('invalidFilter', `The filter does not parse (RFC 7644 §3.4.2.2): ${(e as Error).message}`);
  }
}

function maxNesting(text: string): number {
  let depth = 0;
  let max = 0;
  for (const c of text) {
    if (c === '(' || c === '[') max = Math.max(max, ++depth);
    else if (c === ')' || c === ']') depth--;
  }
  return max;
}

/**
 * A filter compiled for a resource type: every attribute checked to exist and to allow its operator.
 * `unknownUnassigned` (a search across types, RFC 7644 §3.4.3): an attribute the type lacks is
 * unassigned there rather than an error.
 */
export function compileFilter(type: ResourceType, text: string, unknownUnassigned = false): Test {
  return compile(type, parseFilter(text), undefined, unknownUnassigned);
}

/** The leaf definition a comparison reads: the sub-attribute, or a multi-valued complex's `value`. */
const leafOf = (path: ResolvedPath): AttributeDef | undefined =>
  path.sub ??
  (path.attribute?.type === 'complex' ? findAttribute(path.attribute.subAttributes, 'value') : path.attribute);

function compile(type: ResourceType, f: ScimFilter, within: AttributeDef | undefined, lenient = false): Test {
  switch (f.op) {
    case 'and': {
      const parts = f.filters.map((x) => compile(type, x, within, lenient));
      return (r) => parts.every((p) => p(r));
    }
    case 'or': {
      const parts = f.filters.map((x) => compile(type, x, within, lenient));
      return (r) => parts.some((p) => p(r));
    }
    case 'not': {
      const inner = compile(type, f.filter, within, lenient);
      return (r) => !inner(r);
    }
    case '[]': {
      if (within) throw badRequest('invalidFilter', 'A value filter cannot hold another one (RFC 7644 §3.4.2.2)');
      if (lenient && typeof resolvePath(type, f.attrPath) === 'string') return () => false;
      const path = resolveOrRefuse(type, f.attrPath, undefined);
      if (path.sub || path.attribute?.type !== 'complex')
        throw badRequest('invalidFilter', `${f.attrPath} is not a complex attribute: it takes no value filter`);
      const inner = compile(type, f.valFilter, path.attribute);
      return (r) => elementsAt(r, path).some((element) => inner(element));
    }
    default:
      if (lenient && !within && typeof resolvePath(type, f.attrPath) === 'string') return () => f.op === 'ne';
      return comparison(type, f, within);
  }
}

function comparison(type: ResourceType, f: AttrExp, within: AttributeDef | undefined): Test {
  const path = resolveOrRefuse(type, f.attrPath, within);
  const leaf = leafOf(path);
  if (!leaf || path.attribute?.returned === 'never')
    throw badRequest('invalidFilter', `${f.attrPath} cannot be filtered on`);
  const read = within ? (r: Resource) => valuesIn(r, path.attribute!) : (r: Resource) => valuesAt(r, path);
  if (f.op === 'pr') return (r) => read(r).length > 0;
  const compare = comparator(f.op, f.compValue, leaf, f.attrPath);
  if (f.op === 'ne') return (r) => !read(r).some((v) => compare(v, 'eq'));
  return (r) => read(r).some((v) => compare(v, f.op));
}

function resolveOrRefuse(type: ResourceType, attrPath: string, within: AttributeDef | undefined): ResolvedPath {
  if (within) {
    const attribute = findAttribute(within.subAttributes, attrPath);
    if (!attribute) throw badRequest('invalidFilter', `${attrPath} is not a sub-attribute of ${within.name}`);
    return { attribute };
  }
  const path = resolvePath(type, attrPath);
  if (typeof path === 'string') throw badRequest('invalidFilter', path);
  if (!path.attribute) throw badRequest('invalidFilter', `${attrPath} names a schema, not an attribute`);
  return path;
}

type Comparator = (value: unknown, op: string) => boolean;

/** How values of `leaf` compare with the filter's value, or 400 `invalidFilter` where they cannot. */
function comparator(op: string, compValue: unknown, leaf: AttributeDef, attrPath: string): Comparator {
  const refuse = (why: string) => badRequest('invalidFilter', `${attrPath} ${op}: ${why}`);
  if ((leaf.type === 'boolean' || leaf.type === 'binary') && (ORDERING.has(op) || SUBSTRING.has(op)))
    throw refuse(`a ${leaf.type} attribute compares with eq and ne only (RFC 7644 §3.4.2.2)`);
  if (compValue === null) return (value) => (op === 'eq' ? value === null : false);
  if (leaf.type === 'boolean') {
    if (typeof compValue !== 'boolean') throw refuse('compare a boolean with true or false');
    return (value) => value === compValue;
  }
  if (leaf.type === 'integer' || leaf.type === 'decimal') {
    if (typeof compValue !== 'number') throw refuse('compare a number with a number');
    if (SUBSTRING.has(op)) throw refuse('a number takes no substring operator');
    return (value, o) => typeof value === 'number' && order(o, value - compValue);
  }
  if (typeof compValue !== 'string') throw refuse('compare a string attribute with a quoted string');
  if (leaf.type === 'dateTime') {
    const at = Date.parse(compValue);
    if (Number.isNaN(at)) throw refuse('the value is not a dateTime (RFC 7643 §2.3.5)');
    if (SUBSTRING.has(op)) return stringComparator(compValue, true);
    return (value, o) =>
      typeof value === 'string' && !Number.isNaN(Date.parse(value)) && order(o, Date.parse(value) - at);
  }
  return stringComparator(compValue, leaf.caseExact);
}

function stringComparator(compValue: string, caseExact: boolean): Comparator {
  const fold = (s: string) => (caseExact ? s : s.toLowerCase());
  const wanted = fold(compValue);
  return (value, op) => {
    if (typeof value !== 'string') return false;
    const v = fold(value);
    if (op === 'co') return v.includes(wanted);
    if (op === 'sw') return v.startsWith(wanted);
    if (op === 'ew') return v.endsWith(wanted);
    return order(op, v < wanted ? -1 : v > wanted ? 1 : 0);
  };
}

function order(op: string, difference: number): boolean {
  switch (op) {
    case 'eq':
      return difference === 0;
    case 'gt':
      return difference > 0;
    case 'ge':
      return difference >= 0;
    case 'lt':
      return difference < 0;
    case 'le':
      return difference <= 0;
    default:
      return false;
  }
}

/** The elements of a complex attribute (one for a single-valued one). */
function elementsAt(resource: Resource, path: ResolvedPath): Resource[] {
  const value = containerOf(resource, path)?.[path.attribute!.name];
  return (Array.isArray(value) ? value : [value]).filter(isRecord);
}

/** Every scalar value a path names in a resource: any element of a multi-valued attribute. */
export function valuesAt(resource: Resource, path: ResolvedPath): unknown[] {
  const container = containerOf(resource, path);
  if (!container || !path.attribute) return [];
  if (path.sub || path.attribute.type === 'complex')
    return elementsAt(resource, path).flatMap((e) => present(e[(path.sub ?? leafOf(path))!.name]));
  return present(container[path.attribute.name]);
}

const valuesIn = (element: Resource, attribute: AttributeDef) => present(element[attribute.name]);

const present = (value: unknown): unknown[] =>
  (Array.isArray(value) ? value : [value]).filter((v) => v !== undefined && v !== null && v !== '');

/** A filter over the elements of a complex attribute (a PATCH value path, RFC 7644 §3.5.2). */
export const compileElementFilter = (type: ResourceType, attribute: AttributeDef, f: ScimFilter): Test =>
  compile(type, f, attribute);
