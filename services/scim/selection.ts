import { resolvePath, type ResolvedPath } from './attribute-path.ts';
import type { Document } from './input.ts';
import type { ResourceType } from './resource-types.ts';

/**
 * RFC 7644 §3.9: `attributes` and `excludedAttributes`. Attributes `returned: always` (`id`, and
 * `schemas`) stay whatever is asked; names that are no attribute of the type are ignored.
 */
export interface Selection {
  attributes?: readonly string[];
  excludedAttributes?: readonly string[];
}

/** A comma-separated list of a query parameter (or a search request's array), trimmed. */
export function listOf(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  const list = items
    .filter((s): s is string => typeof s === 'string')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length > 0 ? list : undefined;
}

const ALWAYS = new Set(['schemas', 'id']);

export function select(type: ResourceType, doc: Document, selection: Selection): Document {
  const resolve = (names: readonly string[] | undefined) =>
    (names ?? []).map((n) => resolvePath(type, n)).filter((p): p is ResolvedPath => typeof p !== 'string');
  const wanted = resolve(selection.attributes);
  if (selection.attributes && selection.attributes.length > 0) {
    const out: Document = {};
    for (const key of Object.keys(doc)) if (ALWAYS.has(key)) out[key] = doc[key];
    for (const path of wanted) copyPath(doc, out, path);
    return out;
  }
  const out = structuredClone(doc);
  for (const path of resolve(selection.excludedAttributes)) removePath(out, path);
  return out;
}

function copyPath(from: Document, to: Document, path: ResolvedPath): void {
  const source = path.extension ? (from[path.extension] as Document | undefined) : from;
  if (!source) return;
  const target = path.extension ? ((to[path.extension] as Document | undefined) ?? (to[path.extension] = {})) : to;
  if (!path.attribute) {
    to[path.extension!] = structuredClone(source);
    return;
  }
  const name = path.attribute.name;
  const value = source[name];
  if (value === undefined) return;
  if (!path.sub) {
    target[name] = structuredClone(value);
    return;
  }
  const sub = path.sub.name;
  const pick = (e: Document, into: Document = {}) => (e[sub] === undefined ? into : { ...into, [sub]: e[sub] });
  if (Array.isArray(value)) {
    const existing = Array.isArray(target[name]) ? (target[name] as Document[]) : value.map(() => ({}));
    target[name] = (value as Document[]).map((e, i) => pick(e, existing[i]));
  } else target[name] = pick(value as Document, (target[name] as Document | undefined) ?? {});
}

function removePath(doc: Document, path: ResolvedPath): void {
  const container = path.extension ? (doc[path.extension] as Document | undefined) : doc;
  if (!container) return;
  if (!path.attribute) {
    delete doc[path.extension!];
    return;
  }
  if (path.attribute.returned === 'always') return;
  if (!path.sub) {
    delete container[path.attribute.name];
    return;
  }
  const value = container[path.attribute.name];
  for (const e of Array.isArray(value) ? value : [value])
    if (e && typeof e === 'object') delete (e as Document)[path.sub.name];
}
