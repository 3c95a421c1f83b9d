import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { usageFromParts } from '../../canonical/usage.ts';
import {
  eventsOfType,
  readOpenAIResponsesSseFixture,
} from '../../providers/openai-responses/__fixtures__/read-openai-responses-fixture.ts';
import { createOpenAIResponsesStreamDecoder } from '../../providers/openai-responses/decode-openai-responses-stream.ts';
import { openAIResponsesProvider } from '../../providers/openai-responses/openai-responses-provider.ts';
import { responsesSurface } from './responses-surface.ts';

/**
 * The responses surface against the openai-responses provider and against an Anthropic-like part
 * stream: what a client gets back and replays on its next turn must decode to the same parts.
 */

const context = { responseId: 'resp_rt', model: 'public-model', createdAt: 1767004800 };
const longToolName = 'mcp__workspace_tools__search_repository_contents_with_filters_and_globs.v2';
const call: GenerationCall = {
  model: 'public-model',
  messages: [],
  tools: [
    { type: 'function', name: 'shell', inputSchema: { type: 'object' } },
    { type: 'function', name: longToolName, inputSchema: { type: 'object' } },
  ],
  stream: true,
};

function relay(fixture: string) {
  const events = readOpenAIResponsesSseFixture(fixture);
  const decoder = createOpenAIResponsesStreamDecoder(call);
  const encoder = responsesSurface.createStreamEncoder(context);
  const parts = [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
  const rendered = [...parts.flatMap((part) => encoder.encode(part)), ...encoder.end()];
  const completed = rendered.find((event) => event.event === 'response.completed')?.data as {
    response: { output: Array<Record<string, unknown>>; usage: unknown };
  };
  return { events, completed: completed.response };
}

describe('responses surface ← openai-responses provider', () => {
  it('gives the client the upstream reasoning item, text and usage unchanged', () => {
    const { events, completed } = relay('stream-reasoning-text.sse');
    const upstream = eventsOfType(events, 'response.completed')[0]?.response as {
      output: Array<Record<string, unknown>>;
      usage: unknown;
    };
    const [reasoning, message] = completed.output;
    expect(reasoning).toEqual(upstream.output[0]);
    expect((message?.content as Array<{ text: string }>)[0]?.text).toBe(
      ((upstream.output[1]?.content as Array<{ text: string }>)[0] ?? { text: '' }).text,
    );
    expect(completed.usage).toEqual(upstream.usage);
  });

  it('gives the client the upstream function calls with ids, call ids, arguments and its own names', () => {
    const { events, completed } = relay('stream-parallel-function-calls.sse');
    const upstream = eventsOfType(events, 'response.output_item.done').map(
      (event) => event.item as Record<string, unknown>,
    );
    expect(completed.output).toEqual([upstream[0], { ...upstream[1], name: longToolName }]);
  });

  it('turns the replayed output into the same canonical parts, and back into the same upstream items', () => {
    const { completed } = relay('stream-reasoning-text.sse');
    const decoded = responsesSurface.decodeRequest({
      model: 'public-model',
      input: completed.output,
    });
    expect(decoded.issues).toEqual([]);
    const encoded = openAIResponsesProvider.encodeRequest(decoded.value, {
      upstreamModel: 'gpt-5.1-codex',
      promptCache: 'auto',
      defaultMaxOutputTokens: 1024,
    });
    expect(encoded.issues).toEqual([]);
    const [reasoning] = encoded.value.input as Array<Record<string, unknown>>;
    const { type, id, summary, encrypted_content } = completed.output[0] ?? {};
    expect(reasoning).toEqual({ type, id, summary, encrypted_content });
  });
});

describe('responses surface ← an Anthropic upstream', () => {
  const signature = 'EqQBCkYIBhgCIkBx9n+2vLQ3m0p8kJ4yZ1aR7cW5sT6uV0xY2zA3bC4d/E5fG6hH==';
  const thinking = 'Weather for two cities;\n\n"parallel" naïve ☕';
  const parts: StreamPart[] = [
    { type: 'response-start', id: 'msg_01', model: 'claude' },
    { type: 'reasoning-start', id: '0', provider: 'anthropic' },
    { type: 'reasoning-delta', id: '0', delta: thinking.slice(0, 10) },
    { type: 'reasoning-delta', id: '0', delta: thinking.slice(10) },
    { type: 'reasoning-end', id: '0', signature },
    { type: 'reasoning-start', id: '1', provider: 'anthropic', redactedData: 'EmwKAhgBEgy3va3p' },
    { type: 'reasoning-end', id: '1' },
    { type: 'tool-input-start', id: 'toolu_01A', toolName: 'get_weather' },
    { type: 'tool-input-delta', id: 'toolu_01A', delta: '{"city":"Paris"}' },
    { type: 'tool-input-end', id: 'toolu_01A' },
    {
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage: usageFromParts({ noCache: 10, cacheRead: 5, output: 20 }),
    },
  ];

  it('replays thinking, redacted thinking and tool calls byte-identical on the next turn', () => {
    const encoder = responsesSurface.createStreamEncoder(context);
    const rendered = parts.flatMap((part) => encoder.encode(part));
    const output = (
      rendered.at(-1)?.data as { response: { output: Array<Record<string, unknown>> } }
    ).response.output;
    const [, , functionCall] = output;
    const nextTurn = [
      ...output,
      { type: 'function_call_output', call_id: functionCall?.call_id, output: '18°C' },
    ];
    const { value, issues } = responsesSurface.decodeRequest({
      model: 'public-model',
      input: nextTurn,
    });
    expect(issues).toEqual([]);
    expect(value.messages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: thinking, signature, provider: 'anthropic' },
          { type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy3va3p', provider: 'anthropic' },
          {
            type: 'tool-call',
            toolCallId: 'toolu_01A',
            itemId: functionCall?.id,
            toolName: 'get_weather',
            input: '{"city":"Paris"}',
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'toolu_01A',
            toolName: 'get_weather',
            content: '18°C',
          },
        ],
      },
    ]);
    expect(functionCall?.id).not.toBe(functionCall?.call_id);
  });
});
