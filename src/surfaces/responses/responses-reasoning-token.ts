import type { ReasoningPart } from '../../canonical/generation-call.ts';
import { isRecord } from './responses-json-value.ts';

/**
 * Anthropic thinking has no field in the responses dialect, so the surface carries it in the
 * opaque `encrypted_content` of a reasoning item (docs/architecture.md):
 * `sy1.anthropic.` + base64url(JSON {thinking, signature} or {redacted_data}). Decoding gives back
 * the exact thinking text and signature, so the next turn replays them byte-identical.
 */
export const anthropicReasoningPrefix = 'sy1.anthropic.';

export type AnthropicReasoning = { thinking: string; signature: string } | { redactedData: string };

export function encodeAnthropicReasoningToken(reasoning: AnthropicReasoning): string {
  const payload =
    'redactedData' in reasoning
      ? { redacted_data: reasoning.redactedData }
      : { thinking: reasoning.thinking, signature: reasoning.signature };
  return (
    anthropicReasoningPrefix + Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')
  );
}

/** The reasoning inside a token, or undefined when the token is not one the gateway minted. */
export function decodeAnthropicReasoningToken(token: string): AnthropicReasoning | undefined {
  if (!token.startsWith(anthropicReasoningPrefix)) return undefined;
  const encoded = token.slice(anthropicReasoningPrefix.length);
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(payload)) return undefined;
  const keys = Object.keys(payload).sort().join(',');
  if (keys === 'signature,thinking') {
    const { thinking, signature } = payload;
    if (typeof thinking === 'string' && typeof signature === 'string') {
      return { thinking, signature };
    }
  }
  if (keys === 'redacted_data' && typeof payload.redacted_data === 'string') {
    return { redactedData: payload.redacted_data };
  }
  return undefined;
}

/** The canonical part for a decoded token: provider `anthropic`, text and signature exact. */
export function anthropicReasoningPart(reasoning: AnthropicReasoning): ReasoningPart {
  if ('redactedData' in reasoning) {
    return {
      type: 'reasoning',
      text: '',
      redactedData: reasoning.redactedData,
      provider: 'anthropic',
    };
  }
  return {
    type: 'reasoning',
    text: reasoning.thinking,
    signature: reasoning.signature,
    provider: 'anthropic',
  };
}
