/**
 * Reading an answer's JSON without trusting its shape: a member by a path of names and indices
 * (undefined where any step is missing), a string, or a list.
 */
export const member = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>(
    (v, key) => (v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[key] : undefined),
    value,
  );

export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export const items = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
