import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Bytes, writeUtf8 } from './utf8-bytes.ts';

describe('utf8Bytes', () => {
  it('gives the UTF-8 bytes of any string, ASCII or not, lone surrogates included', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' })),
        (text) => {
          expect(utf8Bytes(text).equals(Buffer.from(text, 'utf8'))).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
    expect(utf8Bytes('é').equals(Buffer.from([0xc3, 0xa9]))).toBe(true);
  });
});

describe('writeUtf8', () => {
  it('writes pieces one after another as UTF-8 and returns where the next one goes', () => {
    const pieces = ['{"a":', '"ünï"', ',"b":"plain"}'];
    const lengths = pieces.map((piece) => Buffer.byteLength(piece));
    const out = Buffer.alloc(lengths.reduce((sum, length) => sum + length, 0));
    let offset = 0;
    pieces.forEach((piece, index) => {
      offset = writeUtf8(out, piece, lengths[index] as number, offset);
    });
    expect(offset).toBe(out.length);
    expect(out.toString('utf8')).toBe('{"a":"ünï","b":"plain"}');
  });
});
