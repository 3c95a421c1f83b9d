import { describe, expect, it } from 'vitest';
import { compactionTokenPrefix, createCompactionSeal } from './compaction-seal.ts';

const secret = 'a-test-secret-that-is-long-enough-1234';
const seal = createCompactionSeal(secret);
const summary = { kind: 'summary' as const, summary: 'The user wants a CSV parser; tests pass.' };

/** The token with one byte of its sealed bytes changed, spelled canonically again. */
function flipByte(token: string, index: number): string {
  const packed = Buffer.from(token.slice(compactionTokenPrefix.length), 'base64url');
  packed[index] = (packed[index] as number) ^ 0x01;
  return compactionTokenPrefix + packed.toString('base64url');
}

describe('createCompactionSeal', () => {
  it('opens what it sealed, for the same account, both payload kinds', () => {
    const upstream = { kind: 'upstream' as const, provider: 'openai', encryptedContent: 'gAAA==' };
    expect(seal.open(seal.seal(summary, 'acct_1'), 'acct_1')).toEqual({
      ok: true,
      payload: summary,
    });
    expect(seal.open(seal.seal(upstream, 'acct_1'), 'acct_1')).toEqual({
      ok: true,
      payload: upstream,
    });
  });

  it('hides the payload and never seals twice alike', () => {
    const first = seal.seal(summary, 'acct_1');
    const second = seal.seal(summary, 'acct_1');
    expect(first.startsWith(compactionTokenPrefix)).toBe(true);
    expect(first).not.toEqual(second);
    const bytes = Buffer.from(first.slice(compactionTokenPrefix.length), 'base64url');
    expect(bytes.toString('utf8')).not.toContain('CSV parser');
  });

  it('refuses a token with any byte changed: key id, IV, tag or ciphertext', () => {
    const token = seal.seal(summary, 'acct_1');
    const length = Buffer.from(token.slice(compactionTokenPrefix.length), 'base64url').length;
    for (const index of [0, 4, 16, 32, length - 1]) {
      const opened = seal.open(flipByte(token, index), 'acct_1');
      expect(opened.ok, `byte ${index}`).toBe(false);
    }
    expect(seal.open(flipByte(token, length - 1), 'acct_1')).toEqual({
      ok: false,
      reason: 'integrity',
    });
  });

  it('refuses a token sealed for another account', () => {
    expect(seal.open(seal.seal(summary, 'acct_1'), 'acct_2')).toEqual({
      ok: false,
      reason: 'integrity',
    });
  });

  it('tells a token sealed under another secret apart from an altered one', () => {
    const other = createCompactionSeal('another-secret-that-is-long-enough-5678');
    expect(seal.open(other.seal(summary, 'acct_1'), 'acct_1')).toEqual({
      ok: false,
      reason: 'key',
    });
  });

  it.each([
    ['an OpenAI blob', 'gAAAAABoZ3Rlc3Q='],
    ['another gateway token', 'sy1.anthropic.eyJ0aGlua2luZyI6IngifQ'],
    ['a truncated token', `${compactionTokenPrefix}AAAA`],
    ['characters outside base64url', `${compactionTokenPrefix}ab+c/d==`],
  ])('refuses %s as an unknown format', (_name, token) => {
    expect(seal.open(token, 'acct_1')).toEqual({ ok: false, reason: 'format' });
  });

  it('refuses a second spelling of the same bytes', () => {
    const token = seal.seal(summary, 'acct_1');
    const encoded = token.slice(compactionTokenPrefix.length);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(encoded.at(-1) as string);
    // Only the unused low bits of the last character change: the bytes stay the same.
    const respelled = encoded.slice(0, -1) + alphabet[last ^ 1];
    expect(encoded.length % 4).not.toBe(0);
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(encoded, 'base64url'));
    expect(seal.open(compactionTokenPrefix + respelled, 'acct_1').ok).toBe(false);
  });

  it('refuses a secret too short to be safe', () => {
    expect(() => createCompactionSeal('short')).toThrow(/at least 32/);
  });
});
