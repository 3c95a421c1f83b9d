import { describe, expect, it } from 'vitest';
import {
  decodeGoogleReasoningToken,
  encodeGoogleReasoningToken,
  googleReasoningPrefix,
} from './google-reasoning-token.ts';

describe('google reasoning token', () => {
  it('gives back the exact text and signature', () => {
    const reasoning = { text: 'thinking…\n', signature: 'CiQBcsjafH3+/==' };
    const token = encodeGoogleReasoningToken(reasoning);
    expect(token.startsWith(googleReasoningPrefix)).toBe(true);
    expect(decodeGoogleReasoningToken(token)).toEqual({
      type: 'reasoning',
      provider: 'google',
      ...reasoning,
    });
  });

  it('refuses a token that was altered or not minted here', () => {
    const token = encodeGoogleReasoningToken({ text: '', signature: 'sig' });
    expect(decodeGoogleReasoningToken(`${token}!`)).toBeUndefined();
    expect(decodeGoogleReasoningToken('sy1.anthropic.e30')).toBeUndefined();
    const extra = Buffer.from(JSON.stringify({ text: '', signature: 's', x: 1 })).toString(
      'base64url',
    );
    expect(decodeGoogleReasoningToken(googleReasoningPrefix + extra)).toBeUndefined();
  });
});
