import { describe, expect, it } from 'vitest';

import { parseByteRange } from './parse-byte-range.ts';

describe('parseByteRange (RFC 9110 §14.1.2)', () => {
  it('reads first-last, first- and suffix ranges, clipped to the file', () => {
    expect(parseByteRange('bytes=0-4', 10)).toEqual({ kind: 'range', range: { start: 0, end: 4 } });
    expect(parseByteRange('bytes=5-', 10)).toEqual({ kind: 'range', range: { start: 5, end: 9 } });
    expect(parseByteRange('bytes=8-100', 10)).toEqual({
      kind: 'range',
      range: { start: 8, end: 9 },
    });
    expect(parseByteRange('bytes=-3', 10)).toEqual({ kind: 'range', range: { start: 7, end: 9 } });
    expect(parseByteRange('bytes=-30', 10)).toEqual({
      kind: 'range',
      range: { start: 0, end: 9 },
    });
    expect(parseByteRange('bytes=9-9', 10)).toEqual({ kind: 'range', range: { start: 9, end: 9 } });
  });

  it('answers unsatisfiable for a range past the end or an empty suffix', () => {
    expect(parseByteRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseByteRange('bytes=10-20', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseByteRange('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseByteRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });

  it('ignores what it cannot serve as one range: the whole file is sent', () => {
    for (const header of [undefined, 'items=0-1', 'bytes=0-1,3-4', 'bytes=5-2', 'bytes=-', 'x']) {
      expect(parseByteRange(header, 10)).toEqual({ kind: 'whole' });
    }
  });
});
