import { describe, expect, it } from 'vitest';
import {
  checkClientTokenShape,
  generateClientToken,
  hashClientToken,
  hashesEqual,
} from './client-token.ts';

describe('client tokens', () => {
  it('issues tokens with the service prefix that pass their own checksum', () => {
    const issued = generateClientToken();
    expect(issued.token).toMatch(/^sy_[0-9A-Za-z]{38}$/);
    expect(checkClientTokenShape(issued.token)).toBe('valid');
    expect(issued.hash).toBe(hashClientToken(issued.token));
    expect(issued.token.startsWith(issued.displayPrefix.slice(0, -1))).toBe(true);
  });

  it('never issues the same token twice', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateClientToken().token));
    expect(tokens.size).toBe(1000);
  });

  it('detects every single-character change through the checksum', () => {
    const { token } = generateClientToken();
    for (let index = 3; index < token.length; index += 1) {
      const replacement = token[index] === 'a' ? 'b' : 'a';
      const altered = token.slice(0, index) + replacement + token.slice(index + 1);
      expect(checkClientTokenShape(altered)).toBe('malformed');
    }
  });

  it('tells foreign prefixes from malformed tokens', () => {
    expect(checkClientTokenShape('sk-proj-abc')).toBe('foreign');
    expect(checkClientTokenShape('sy_short')).toBe('malformed');
    expect(checkClientTokenShape(`${generateClientToken().token}x`)).toBe('malformed');
  });

  it('compares hashes exactly', () => {
    const hash = hashClientToken('a');
    expect(hashesEqual(hash, hashClientToken('a'))).toBe(true);
    expect(hashesEqual(hash, hashClientToken('b'))).toBe(false);
  });
});
