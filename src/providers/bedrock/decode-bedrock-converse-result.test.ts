import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import { readBedrockJsonFixture } from './__fixtures__/read-bedrock-fixture.ts';
import { decodeBedrockConverseResult } from './decode-bedrock-converse-result.ts';

const call: GenerationCall = { model: 'm', messages: [], tools: [], stream: false };

describe('decodeBedrockConverseResult', () => {
  it('reads reasoning with its signature, text, tool use, the stop reason and cache usage', () => {
    const result = decodeBedrockConverseResult(
      readBedrockJsonFixture('converse-reasoning-tool-use.json'),
      call,
    );
    expect(result.content).toEqual([
      {
        type: 'reasoning',
        text: 'The user wants the weather in Seattle, so I should call the tool.',
        signature: 'EqoBCkgIARABGAIiQL2bFh3Jx',
      },
      { type: 'text', text: 'Let me look that up.' },
      {
        type: 'tool-call',
        toolCallId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
        toolName: 'get_weather',
        input: '{"city":"Seattle","unit":"celsius"}',
      },
    ]);
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_use' });
    expect(result.usage).toEqual({
      inputTokens: {
        total: 412 + 1536 + 512,
        noCache: 412,
        cacheRead: 1536,
        cacheWrite5m: 384,
        cacheWrite1h: 128,
      },
      outputTokens: { total: 87, reasoning: 0 },
    });
  });

  it('maps guardrail and content-filter stops to content-filter, keeping the raw word', () => {
    for (const stopReason of ['guardrail_intervened', 'content_filtered']) {
      const result = decodeBedrockConverseResult({ stopReason, usage: {} }, call);
      expect(result.finishReason).toEqual({ unified: 'content-filter', raw: stopReason });
    }
  });

  it('reads redacted reasoning as redacted data', () => {
    const body = {
      output: { message: { content: [{ reasoningContent: { redactedContent: 'ZW5jcnlwdGVk' } }] } },
      stopReason: 'end_turn',
    };
    expect(decodeBedrockConverseResult(body, call).content).toEqual([
      { type: 'reasoning', text: '', redactedData: 'ZW5jcnlwdGVk' },
    ]);
  });
});
