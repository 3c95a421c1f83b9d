import { describe, expect, it } from 'vitest';

import { copyWith } from './copy-with.ts';

describe('copyWith', () => {
  it('copies the members in order, the changes last or in place, and leaves the source alone', () => {
    const source = { a: 1, b: { c: 2 }, d: 3 };
    const copy = copyWith(source, { d: 4, e: 5 });
    expect(copy).toEqual({ a: 1, b: { c: 2 }, d: 4, e: 5 });
    expect(Object.keys(copy)).toEqual(['a', 'b', 'd', 'e']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify({ ...source, d: 4, e: 5 }));
    expect(copy.b).toBe(source.b);
    expect(source).toEqual({ a: 1, b: { c: 2 }, d: 3 });
  });

  it('keeps an own __proto__ member a member, as a spread does, not a prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = copyWith(parsed, { b: 2 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(copy['polluted']).toBeUndefined();
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(copy.b).toBe(2);
  });
});
