/**
 * Decoders bound the nesting of what they accept: a value nested deeper than this is refused before
 * anything recursive (rebuilding claims, serialising a response) touches it.
 */
export const MAX_NESTING = 64;

/** The nesting depth of a JSON-like value (arrays, objects and Maps), computed without recursion. */
function nestingDepth(value: unknown, stopAbove = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object' || ArrayBuffer.isView(current)) continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > stopAbove) return deepest;
    const children =
      current instanceof Map ? current.values() : Array.isArray(current) ? current.values() : Object.values(current);
    for (const child of children) stack.push([child, level]);
  }
  return deepest;
}

/** True when the value is nested no deeper than `limit`. */
export const withinNesting = (value: unknown, limit = MAX_NESTING): boolean => nestingDepth(value, limit) <= limit;
