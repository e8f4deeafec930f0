import type { ClaimValue, PathElement } from './types.ts';

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Claims path pointer processing (OpenID4VP 1.0 §7.1): a string selects an object member, a
 * non-negative integer an array element, null every element of an array. Returns each selected
 * value with its concrete path; an empty list means the claim is absent.
 */
export function selectClaims(root: unknown, path: PathElement[]): { path: (string | number)[]; value: unknown }[] {
  let current: { path: (string | number)[]; value: unknown }[] = [{ path: [], value: root }];
  for (const step of path) {
    const next: typeof current = [];
    for (const { path: p, value } of current) {
      if (typeof step === 'string') {
        if (isPlainObject(value) && Object.hasOwn(value, step)) next.push({ path: [...p, step], value: value[step] });
      } else if (step === null) {
        if (Array.isArray(value)) value.forEach((v, i) => next.push({ path: [...p, i], value: v }));
      } else if (Array.isArray(value) && step < value.length) {
        next.push({ path: [...p, step], value: value[step] });
      }
    }
    current = next;
  }
  return current;
}

/** §6.3 `values`: the claim matches when its type and value equal one of them; without `values`, any present (non-null) value matches. */
export const valueMatches = (value: unknown, values?: ClaimValue[]) => (values ? values.some((v) => v === value) : value !== null && value !== undefined);
