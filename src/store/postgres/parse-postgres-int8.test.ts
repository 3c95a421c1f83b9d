import { describe, expect, it } from 'vitest';

import { parsePostgresInt8, postgresStoreTypes } from './parse-postgres-int8.ts';

describe('parsePostgresInt8', () => {
  it('returns exact numbers up to Number.MAX_SAFE_INTEGER either side of zero', () => {
    expect(parsePostgresInt8('0')).toBe(0);
    expect(parsePostgresInt8('-1234567')).toBe(-1_234_567);
    expect(parsePostgresInt8(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(parsePostgresInt8(String(-Number.MAX_SAFE_INTEGER))).toBe(-Number.MAX_SAFE_INTEGER);
  });

  it('throws beyond Number.MAX_SAFE_INTEGER instead of rounding', () => {
    expect(() => parsePostgresInt8('9007199254740992')).toThrow(RangeError);
    expect(() => parsePostgresInt8('-9007199254740993')).toThrow(RangeError);
    expect(() => parsePostgresInt8('9223372036854775807')).toThrow(RangeError);
  });

  it('is the text parser for int8 only', () => {
    expect(postgresStoreTypes.getTypeParser(20, 'text')).toBe(parsePostgresInt8);
    expect(postgresStoreTypes.getTypeParser(23, 'text')).not.toBe(parsePostgresInt8);
  });
});
