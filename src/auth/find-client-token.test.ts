import { describe, expect, it } from 'vitest';
import { generateClientToken } from './client-token.ts';
import { containsClientToken, redactClientTokens } from './find-client-token.ts';

describe('containsClientToken', () => {
  const { token } = generateClientToken();

  it('finds a token at the start, the end, inside a word and inside JSON text', () => {
    for (const text of [
      token,
      `Bearer ${token}`,
      `prefix${token}suffix`,
      JSON.stringify({ messages: [{ role: 'user', content: `my key is ${token}, keep it` }] }),
      `{"api_key":"${token}"}`,
    ]) {
      expect(containsClientToken(text), text).toBe(true);
    }
  });

  it('ignores text that only starts like a token or whose checksum does not match', () => {
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    for (const text of [
      '',
      'sy_',
      'busy_day and easy_going snake_case_names',
      token.slice(0, -1),
      token.slice(0, -1) + last,
      token.replace('sy_', 'sk_'),
    ]) {
      expect(containsClientToken(text), text).toBe(false);
    }
  });

  it('finds the token after many near misses', () => {
    const near = 'sy_'.padEnd(41, 'a');
    expect(containsClientToken(`${near} _ sy_ ${near}`)).toBe(false);
    expect(containsClientToken(`${near} _ sy_ ${near} ${token}`)).toBe(true);
  });
});

describe('redactClientTokens', () => {
  it('replaces everything token-shaped, checksum or not, and leaves other text alone', () => {
    const { token } = generateClientToken();
    const mistyped = token.slice(0, -1) + (token.at(-1) === 'A' ? 'B' : 'A');
    const redacted = redactClientTokens(`GET /v1/models/${token}?x=${mistyped} sy_short`);
    expect(redacted).toBe('GET /v1/models/sy_[redacted]?x=sy_[redacted] sy_short');
    expect(redactClientTokens('nothing here')).toBe('nothing here');
  });
});
