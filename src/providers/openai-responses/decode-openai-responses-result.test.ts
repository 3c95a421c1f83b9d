import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import { readOpenAIResponsesJsonFixture } from './__fixtures__/read-openai-responses-fixture.ts';
import { decodeOpenAIResponsesResult } from './decode-openai-responses-result.ts';
import { toOpenAIToolName } from '../shared/openai-tool-names.ts';

const call: GenerationCall = { model: 'm', messages: [], tools: [], stream: false };

describe('decodeOpenAIResponsesResult', () => {
  it('keeps reasoning, text and function calls in order with ids, call ids and arguments exact', () => {
    const body = readOpenAIResponsesJsonFixture('response-reasoning-function-call.json');
    const [reasoning, message, functionCall] = body.output as Array<Record<string, unknown>>;
    const summaries = (reasoning?.summary as { text: string }[]).map((entry) => entry.text);
    const result = decodeOpenAIResponsesResult(body, call);
    expect(result.content).toEqual([
      {
        type: 'reasoning',
        text: summaries.join('\n\n'),
        provider: 'openai',
        summary: summaries,
        itemId: reasoning?.id,
        encryptedContent: reasoning?.encrypted_content,
      },
      { type: 'text', text: (message?.content as { text: string }[])[0]?.text },
      {
        type: 'tool-call',
        toolCallId: functionCall?.call_id,
        itemId: functionCall?.id,
        toolName: 'shell',
        input: functionCall?.arguments,
      },
    ]);
    expect(functionCall?.id).not.toBe(functionCall?.call_id);
    expect(result).toMatchObject({
      id: body.id,
      model: body.model,
      finishReason: { unified: 'tool-calls', raw: 'completed' },
      usage: {
        inputTokens: {
          total: 2941,
          noCache: 125,
          cacheRead: 2816,
          cacheWrite5m: 0,
          cacheWrite1h: 0,
        },
        outputTokens: { total: 187, reasoning: 128 },
      },
    });
  });

  it('maps shortened tool names back and treats a refusal as text', () => {
    const name = 'tool with spaces';
    const result = decodeOpenAIResponsesResult(
      {
        status: 'completed',
        output: [
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'c1',
            name: toOpenAIToolName(name),
            arguments: '{}',
          },
          { type: 'message', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] },
        ],
      },
      { ...call, tools: [{ type: 'function', name, inputSchema: {} }] },
    );
    expect(result.content).toEqual([
      { type: 'tool-call', toolCallId: 'c1', itemId: 'fc_1', toolName: name, input: '{}' },
      { type: 'text', text: 'I cannot help with that.' },
    ]);
  });

  it('reads an empty or foreign body without throwing', () => {
    const result = decodeOpenAIResponsesResult('not an object', call);
    expect(result.content).toEqual([]);
    expect(result.finishReason).toEqual({ unified: 'other', raw: undefined });
    expect(result.usage.inputTokens.total).toBe(0);
  });
});
