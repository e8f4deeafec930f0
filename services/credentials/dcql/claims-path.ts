import type { ClaimValue, PathElement } from './types.ts';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Claims path pointer processing (OpenID4VP 1.0 §7.1.1), strictly: a string selects that member of
 * every selected object (objects without it drop out), null every element and an integer one
 * element of every selected array (arrays too short drop out). If any selected element is not an
 * object (for a string) or not an array (for null or an integer), or the selection becomes empty,
 * processing fails: the result is an empty list, meaning the claim is not there.
 */
export function selectClaims(root: unknown, path: PathElement[]): { path: (string | number)[]; value: unknown }[] {
  let current: { path: (string | number)[]; value: unknown }[] = [{ path: [], value: root }];
  for (const step of path) {
    const next: typeof current = [];
    for (const { path: p, value } of current) {
      if (typeof step === 'string') {
        if (!isPlainObject(value)) return [];
        if (Object.hasOwn(value, step)) next.push({ path: [...p, step], value: value[step] });
      } else {
        if (!Array.isArray(value)) return [];
        if (step === null) value.forEach((v, i) => next.push({ path: [...p, i], value: v }));
        else if (step < value.length) next.push({ path: [...p, step], value: value[step] });
      }
    }
    if (next.length === 0) return [];
    current = next;
  }
  return current;
}

/** §6.3 `values`: the claim matches when its type and value equal one of them; without `values`, any present (non-null) value matches. */
export const valueMatches = (value: unknown, values?: ClaimValue[]) =>
  values ? values.some((v) => v === value) : value !== null && value !== undefined;
