/**
 * Names taken from untrusted input (mdoc namespaces and element identifiers, disclosure names, JSON
 * member names, DCQL ids) must never reach `Object.prototype` when they become keys. Containers for
 * such names are Maps or objects without a prototype; where an ordinary object must be produced,
 * the three names below are refused outright.
 */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** `__proto__`, `constructor` or `prototype`: names that reach a prototype or a constructor. */
export const isPrototypeName = (name: unknown): boolean => typeof name === 'string' && PROTOTYPE_NAMES.has(name);

/** An object with no prototype: assigning any name to it creates an own property, nothing else. */
export const nullRecord = <V = unknown>(): Record<string, V> => Object.create(null) as Record<string, V>;

/** Copies entries into a prototype-free object (the untrusted counterpart of `Object.fromEntries`). */
export function recordFrom<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const out = nullRecord<V>();
  for (const [k, v] of entries) out[k] = v;
  return out;
}
