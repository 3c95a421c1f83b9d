import { describe, expect, it } from 'vitest';
import { omitNullFields } from './omit-null-fields.ts';

describe('omitNullFields', () => {
  it('drops null-valued keys one level deep and keeps the order of the others', () => {
    const object = { a: 1, parsed: null, b: { c: null }, d: [null] };
    expect(omitNullFields(object)).toEqual({ a: 1, b: { c: null }, d: [null] });
    expect(Object.keys(omitNullFields(object))).toEqual(['a', 'b', 'd']);
  });

  it('returns the same object when nothing is null', () => {
    const object = { a: 1, b: false, c: 0, d: '' };
    expect(omitNullFields(object)).toBe(object);
  });
});
