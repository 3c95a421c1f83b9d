/**
 * The deepest nesting a client JSON body may have (docs/decisions/0025): far beyond any real
 * request (a tool schema inside a message inside a body is rarely 20 levels deep), far below the
 * depth at which JSON.stringify or a recursive codec overflows the stack (docs/decisions/0025).
 */
export const maximumJsonDepth = 128;

/**
 * The path (`tools.0.input_schema.properties.a…`) of the first object or array nested deeper
 * than `limit` in a parsed JSON value, or undefined when there is none. The top-level value is at
 * depth 1. Recursive, which is safe: it never goes more than `limit` frames deep, and it only
 * visits objects and arrays, so it costs little next to the parse that made the value.
 */
export function findDeepJsonPath(value: unknown, limit = maximumJsonDepth): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const path = deepPath(value, 1, limit);
  return path === undefined ? undefined : path.reverse().join('.');
}

/** Segments from the deep value back to the top (built only when the limit is exceeded). */
function deepPath(value: object, depth: number, limit: number): string[] | undefined {
  if (depth > limit) return [];
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      if (typeof item !== 'object' || item === null) continue;
      const path = deepPath(item, depth + 1, limit);
      if (path !== undefined) return appendSegment(path, String(index));
    }
    return undefined;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item !== 'object' || item === null) continue;
    const path = deepPath(item, depth + 1, limit);
    if (path !== undefined) return appendSegment(path, key);
  }
  return undefined;
}

/** A client chooses the keys: a long one is shortened so the error message stays readable. */
function appendSegment(path: string[], segment: string): string[] {
  path.push(segment.length > 40 ? `${segment.slice(0, 40)}…` : segment);
  return path;
}
