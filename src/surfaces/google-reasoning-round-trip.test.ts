import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../canonical/generation-call.ts';
import { readGeminiSseFixture } from '../providers/gemini/__fixtures__/read-gemini-fixture.ts';
import { createGeminiStreamDecoder } from '../providers/gemini/decode-gemini-stream.ts';
import { encodeGeminiRequest } from '../providers/gemini/encode-gemini-request.ts';
import { messagesSurface } from './messages/messages-surface.ts';
import { responsesSurface } from './responses/responses-surface.ts';

/**
 * A Gemini answer shown to a message-style or responses client and replayed by it on the next
 * turn goes back to Gemini with every signature on the part it came with (docs/decisions/0153).
 */

const context = { responseId: 'resp_g', model: 'public-model', createdAt: 1767004800 };
const options = {
  upstreamModel: 'gemini-3-pro-preview',
  promptCache: 'off',
  defaultMaxOutputTokens: 1024,
} as const;
const call: GenerationCall = { model: 'public-model', messages: [], tools: [], stream: true };
const fixture = 'stream-parallel-function-calls.sse';

function geminiParts() {
  const decoder = createGeminiStreamDecoder(call);
  const events = readGeminiSseFixture(fixture);
  return [...events.flatMap((event) => decoder.push(event)), ...decoder.end()];
}

/** The `parts` Gemini sent, merged over its chunks as it would take them back. */
function sentParts(): unknown[] {
  return readGeminiSseFixture(fixture).flatMap(
    (event) =>
      (JSON.parse(event.data) as { candidates: Array<{ content: { parts: unknown[] } }> })
        .candidates[0]!.content.parts,
  );
}

describe('Gemini signatures through the client dialects', () => {
  it('survive a message-style stream and its replay', () => {
    const encoder = messagesSurface.createStreamEncoder(context);
    const events = geminiParts().flatMap((part) => encoder.encode(part));
    const blocks: Array<Record<string, unknown>> = [];
    type Event = {
      type: string;
      index: number;
      content_block: Record<string, unknown>;
      delta: { type: string; text?: string; signature?: string; partial_json?: string };
    };
    for (const { data } of events as Array<{ data: Event }>) {
      if (data.type === 'content_block_start') blocks[data.index] = { ...data.content_block };
      if (data.type === 'content_block_delta') {
        const block = blocks[data.index]!;
        const delta = data.delta;
        if (delta.type === 'text_delta') block.text = `${block.text as string}${delta.text}`;
        if (delta.type === 'signature_delta') block.signature = delta.signature;
        if (delta.type === 'input_json_delta') block.input = JSON.parse(delta.partial_json!);
      }
    }
    const ids = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id);
    const decoded = messagesSurface.decodeRequest({
      model: 'public-model',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Weather in Paris and London?' },
        { role: 'assistant', content: blocks },
        {
          role: 'user',
          content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'sunny' })),
        },
      ],
    });
    expect(decoded.issues).toEqual([]);
    const encoded = encodeGeminiRequest(decoded.value, options);
    expect(encoded.issues).toEqual([]);
    const contents = encoded.value.contents as Array<{ parts: unknown[] }>;
    expect(contents[1]!.parts).toEqual(sentParts());
  });

  it('survive a responses stream and its replay', () => {
    const encoder = responsesSurface.createStreamEncoder(context);
    const events = geminiParts().flatMap((part) => encoder.encode(part));
    const completed = events.find((event) => event.event === 'response.completed')?.data as {
      response: { output: Array<Record<string, unknown>> };
    };
    const output = completed.response.output;
    const calls = output.filter((item) => item.type === 'function_call');
    const decoded = responsesSurface.decodeRequest({
      model: 'public-model',
      input: [
        { role: 'user', content: 'Weather in Paris and London?' },
        ...output.map(({ status: _status, ...item }) => item),
        ...calls.map((item) => ({
          type: 'function_call_output',
          call_id: item.call_id,
          output: 'sunny',
        })),
      ],
    });
    expect(decoded.issues).toEqual([]);
    const encoded = encodeGeminiRequest(decoded.value, options);
    expect(encoded.issues).toEqual([]);
    const contents = encoded.value.contents as Array<{ parts: unknown[] }>;
    expect(contents[1]!.parts).toEqual(sentParts());
  });
});
