import { describe, expect, it } from 'vitest';
import { splitIntoDeltas } from './split-into-deltas.ts';

describe('splitIntoDeltas', () => {
  it('cuts text into pieces of 3 to 8 code points that rejoin exactly', () => {
    const text = 'A fairly long sentence that needs several pieces to stream.';
    const pieces = splitIntoDeltas(text);
    expect(pieces.join('')).toBe(text);
    expect(new Set(pieces.map((piece) => piece.length)).size).toBeGreaterThan(1);
    for (const piece of pieces.slice(0, -1)) {
      expect(piece.length).toBeGreaterThanOrEqual(3);
      expect(piece.length).toBeLessThanOrEqual(8);
    }
  });

  it('never splits a surrogate pair', () => {
    const text = '😀😀😀😀😀😀😀😀😀😀';
    for (const piece of splitIntoDeltas(text)) expect(piece).toMatch(/^(?:😀)+$/u);
  });

  it('yields nothing for empty text', () => {
    expect(splitIntoDeltas('')).toEqual([]);
  });
});
