/** The copy's type, member by member of a union, as a spread would type it. */
export type CopiedWith<Source, Changes> = Source extends unknown
  ? Omit<Source, keyof Changes> & Changes
  : never;

/**
 * `{ ...object, ...changes }`, built with `Object.assign`. On Node 20's V8 an object literal that
 * starts with a spread and then adds a member its source lacks, or a member added later to such
 * a copy, takes a slow path: about 1 µs against 0.1 µs here (docs/performance.md). For objects
 * copied on every request. An own `__proto__` member, which `Object.assign` would turn into the
 * copy's prototype, is left to the spread, which copies it as a member.
 */
export function copyWith<Source extends object, Changes extends object>(
  object: Source,
  changes: Changes,
): CopiedWith<Source, Changes> {
  const copy: unknown =
    Object.hasOwn(object, '__proto__') || Object.hasOwn(changes, '__proto__')
      ? { ...object, ...changes }
      : Object.assign({}, object, changes);
  return copy as CopiedWith<Source, Changes>;
}
