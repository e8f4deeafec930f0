/**
 * JSON from another origin (metadata, token answers, request objects) is read as `unknown` and
 * narrowed member by member where it is used: nothing read from the network is trusted to have the
 * shape its specification describes.
 */
export type JsonObject = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value when it is a JSON object, else undefined. */
export const objectOf = (value: unknown): JsonObject | undefined => (isJsonObject(value) ? value : undefined);

/** The value when it is a string, else undefined. */
export const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The strings of an array (anything else in it left out); not an array gives none. */
export const stringsOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** The value when it is an array, else an empty one. */
export const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * The member at `path` (names through JSON objects, indices through arrays), or undefined where a step
 * is missing, inherited or of the wrong kind.
 */
export function memberAt(value: unknown, ...path: Array<string | number>): unknown {
  let current = value;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(current) || !Number.isInteger(step) || step < 0 || step >= current.length) return undefined;
      current = current[step] as unknown;
    } else {
      if (!isJsonObject(current) || !Object.hasOwn(current, step)) return undefined;
      current = current[step];
    }
  }
  return current;
}
