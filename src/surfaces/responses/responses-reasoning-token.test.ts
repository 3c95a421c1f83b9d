import { describe, expect, it } from 'vitest';
import {
  anthropicReasoningPrefix,
  decodeAnthropicReasoningToken,
  encodeAnthropicReasoningToken,
} from './responses-reasoning-token.ts';

const signature =
  'ErUBCkYIBhgCIkBx9n+2vLQ3m0p8kJ4yZ1aR7cW5sT6uV0xY2zA3bC4dE5fG6hH7iI8jJ9kK0lL1mM2nN3oO4pP5qQ6rR7sS8tT9EgyWd0s1Rk7qL3hY2p0aDGh9cE+vN5mZ2sX8kA==';

describe('the sy1.anthropic reasoning token', () => {
  it.each([
    { thinking: 'Two lookups; run both.\n\n  "quoted" naïve café ☕ 𝄞 \u0000 end', signature },
    { thinking: '', signature },
    { thinking: 'x', signature: '' },
  ])('gives back the thinking and signature byte-identical', (reasoning) => {
    const token = encodeAnthropicReasoningToken(reasoning);
    expect(token.startsWith(anthropicReasoningPrefix)).toBe(true);
    expect(token.slice(anthropicReasoningPrefix.length)).toMatch(/^[A-Za-z0-9_-]+$/);
    const decoded = decodeAnthropicReasoningToken(token);
    expect(decoded).toEqual(reasoning);
    if (decoded !== undefined && 'thinking' in decoded) {
      expect(Buffer.from(decoded.signature)).toEqual(Buffer.from(reasoning.signature));
      expect(Buffer.from(decoded.thinking)).toEqual(Buffer.from(reasoning.thinking));
    }
  });

  it('gives back redacted thinking exactly', () => {
    const reasoning = {
      redactedData: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP',
    };
    expect(decodeAnthropicReasoningToken(encodeAnthropicReasoningToken(reasoning))).toEqual(
      reasoning,
    );
  });

  it.each([
    ['another prefix', 'sy1.openai.eyJ0aGlua2luZyI6IngiLCJzaWduYXR1cmUiOiJ5In0'],
    [
      'characters outside base64url',
      `${anthropicReasoningPrefix}eyJ0aGlua2luZyI6IngiLCJzaWduYXR1cmUiOiJ5In0=`,
    ],
    ['not JSON', `${anthropicReasoningPrefix}${Buffer.from('thinking').toString('base64url')}`],
    [
      'an extra key',
      `${anthropicReasoningPrefix}${Buffer.from('{"thinking":"x","signature":"y","id":"z"}').toString('base64url')}`,
    ],
    [
      'a missing signature',
      `${anthropicReasoningPrefix}${Buffer.from('{"thinking":"x"}').toString('base64url')}`,
    ],
    [
      'a number as thinking',
      `${anthropicReasoningPrefix}${Buffer.from('{"thinking":1,"signature":"y"}').toString('base64url')}`,
    ],
  ])('refuses a token with %s', (_name, token) => {
    expect(decodeAnthropicReasoningToken(token)).toBeUndefined();
  });
});
