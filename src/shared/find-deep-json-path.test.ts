import { describe, expect, it } from 'vitest';
import { findDeepJsonPath, maximumJsonDepth } from './find-deep-json-path.ts';

/** `levels` nested containers, alternating objects (key `a`) and arrays. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let level = levels; level >= 1; level -= 1) value = level % 2 === 0 ? [value] : { a: value };
  return value;
}

describe('findDeepJsonPath', () => {
  it('accepts values nested exactly to the limit, and scalars', () => {
    expect(findDeepJsonPath(nested(maximumJsonDepth))).toBeUndefined();
    expect(findDeepJsonPath('text')).toBeUndefined();
    expect(findDeepJsonPath(null)).toBeUndefined();
    expect(findDeepJsonPath({ a: [1, 'two', { b: null }] })).toBeUndefined();
  });

  it('names the path of the first container past the limit', () => {
    expect(findDeepJsonPath({ ok: 1, tools: [{ x: { y: {} } }] }, 3)).toBe('tools.0.x');
    expect(findDeepJsonPath([[['deep']]], 2)).toBe('0.0');
    const path = findDeepJsonPath(nested(maximumJsonDepth + 1));
    expect(path?.split('.')).toHaveLength(maximumJsonDepth);
    expect(path?.startsWith('a.0.a.0')).toBe(true);
  });

  it('stops at the limit however deep the value goes (no stack overflow)', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(findDeepJsonPath(deep)?.split('.')).toHaveLength(maximumJsonDepth);
  });

  it('shortens long keys in the path', () => {
    const key = 'k'.repeat(1000);
    expect(findDeepJsonPath({ [key]: {} }, 1)).toBe(`${'k'.repeat(40)}…`);
  });
});
