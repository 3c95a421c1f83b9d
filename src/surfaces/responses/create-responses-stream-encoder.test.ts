import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { usageFromParts } from '../../canonical/usage.ts';
import type { SurfaceEvent } from '../surface-codec.ts';
import { createResponsesStreamEncoder } from './create-responses-stream-encoder.ts';
import { decodeAnthropicReasoningToken } from './responses-reasoning-token.ts';

const context = { responseId: 'resp_s1', model: 'public-model', createdAt: 1767004800 };
const usage = usageFromParts({
  noCache: 20,
  cacheRead: 3000,
  cacheWrite5m: 100,
  output: 80,
  reasoning: 30,
});

type EventData = Record<string, unknown> & { type: string; sequence_number: number };

function run(parts: StreamPart[], withEnd = true): SurfaceEvent[] {
  const encoder = createResponsesStreamEncoder(context);
  const events = parts.flatMap((part) => encoder.encode(part));
  return withEnd ? [...events, ...encoder.end()] : events;
}
const data = (events: SurfaceEvent[]) => events.map((event) => event.data as EventData);
const names = (events: SurfaceEvent[]) => events.map((event) => event.event);
const ofType = (events: SurfaceEvent[], type: string) =>
  data(events).filter((event) => event.type === type);

/** Anthropic-like: thinking, two text blocks, two parallel tool calls whose deltas interleave. */
const anthropicTurn: StreamPart[] = [
  { type: 'response-start', id: 'msg_up', model: 'claude' },
  { type: 'reasoning-start', id: '0', provider: 'anthropic' },
  { type: 'reasoning-delta', id: '0', delta: 'Two lookups;' },
  { type: 'reasoning-delta', id: '0', delta: ' both at once.' },
  { type: 'reasoning-end', id: '0', signature: 'sig+/==' },
  { type: 'text-start', id: '1' },
  { type: 'text-delta', id: '1', delta: 'Checking ' },
  { type: 'text-delta', id: '1', delta: 'both.' },
  { type: 'text-end', id: '1' },
  { type: 'text-start', id: '2' },
  { type: 'text-delta', id: '2', delta: ' Second block.' },
  { type: 'text-end', id: '2' },
  { type: 'tool-input-start', id: 'toolu_A', toolName: 'get_weather' },
  { type: 'tool-input-start', id: 'toolu_B', toolName: 'mcp__docs--search' },
  { type: 'tool-input-delta', id: 'toolu_A', delta: '{"city":' },
  { type: 'tool-input-delta', id: 'toolu_B', delta: '{"query":"naïve' },
  { type: 'tool-input-delta', id: 'toolu_A', delta: ' "Paris"}' },
  { type: 'tool-input-delta', id: 'toolu_B', delta: ' café"}' },
  { type: 'tool-input-end', id: 'toolu_A' },
  { type: 'tool-input-end', id: 'toolu_B' },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage },
];

describe('createResponsesStreamEncoder', () => {
  it('renders the event sequence of the dialect with strictly increasing sequence numbers from 0', () => {
    const events = run(anthropicTurn);
    expect(names(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(data(events).map((event) => event.sequence_number)).toEqual(
      events.map((_event, index) => index),
    );
    for (const event of events) expect((event.data as EventData).type).toBe(event.event);
    // The openai SDK throws on any event whose top-level `error` is truthy (docs/clients.md).
    for (const event of data(events)) expect(event.error ?? null).toBeNull();
  });

  it('opens with the response id, a numeric created_at, the model and an in-progress status', () => {
    const [created] = ofType(run(anthropicTurn), 'response.created');
    expect(created?.response).toEqual({
      id: 'resp_s1',
      object: 'response',
      created_at: 1767004800,
      status: 'in_progress',
      error: null,
      incomplete_details: null,
      model: 'public-model',
      output: [],
      usage: null,
    });
  });

  it('addresses items by output index and keeps call ids and item ids apart', () => {
    const events = run(anthropicTurn);
    const added = ofType(events, 'response.output_item.added');
    expect(added.map((event) => event.output_index)).toEqual([0, 1, 2, 3]);
    const done = ofType(events, 'response.output_item.done').map(
      (event) => event.item as Record<string, unknown>,
    );
    const calls = done.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([
      {
        id: 'fc_s1_2',
        type: 'function_call',
        status: 'completed',
        arguments: '{"city": "Paris"}',
        call_id: 'toolu_A',
        name: 'get_weather',
      },
      {
        id: 'fc_s1_3',
        type: 'function_call',
        status: 'completed',
        arguments: '{"query":"naïve café"}',
        call_id: 'toolu_B',
        name: 'search',
        namespace: 'mcp__docs',
      },
    ]);
    const argumentsDone = ofType(events, 'response.function_call_arguments.done');
    expect(
      argumentsDone.map((event) => [event.item_id, event.output_index, event.arguments]),
    ).toEqual([
      ['fc_s1_2', 2, '{"city": "Paris"}'],
      ['fc_s1_3', 3, '{"query":"naïve café"}'],
    ]);
  });

  it('puts consecutive text blocks in one message as separate content parts', () => {
    const events = run(anthropicTurn);
    const message = ofType(events, 'response.output_item.done')[1]?.item;
    expect(message).toEqual({
      id: 'msg_s1_1',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [
        { type: 'output_text', annotations: [], logprobs: [], text: 'Checking both.' },
        { type: 'output_text', annotations: [], logprobs: [], text: ' Second block.' },
      ],
    });
    expect(
      ofType(events, 'response.output_text.delta').map((event) => event.content_index),
    ).toEqual([0, 0, 1]);
  });

  it('carries Anthropic thinking in the reasoning item at output_item.done', () => {
    const [reasoning] = ofType(run(anthropicTurn), 'response.output_item.done');
    const item = reasoning?.item as { summary: unknown; encrypted_content: string };
    expect(item.summary).toEqual([{ type: 'summary_text', text: 'Two lookups; both at once.' }]);
    expect(decodeAnthropicReasoningToken(item.encrypted_content)).toEqual({
      thinking: 'Two lookups; both at once.',
      signature: 'sig+/==',
    });
  });

  it('ends with the full output and the exact usage', () => {
    const events = run(anthropicTurn);
    const [completed] = ofType(events, 'response.completed');
    const response = completed?.response as Record<string, unknown>;
    expect(response.status).toBe('completed');
    expect(response.output).toEqual(
      ofType(events, 'response.output_item.done').map((event) => event.item),
    );
    expect(response.usage).toEqual({
      input_tokens: 3120,
      input_tokens_details: { cached_tokens: 3000 },
      output_tokens: 80,
      output_tokens_details: { reasoning_tokens: 30 },
      total_tokens: 3200,
    });
    expect(events.at(-1)?.event).toBe('response.completed');
  });

  it('keeps OpenAI reasoning item ids, summaries and encrypted content', () => {
    const events = run([
      { type: 'reasoning-start', id: 'rs_up', provider: 'openai', itemId: 'rs_up' },
      { type: 'reasoning-delta', id: 'rs_up', delta: 'A' },
      { type: 'reasoning-delta', id: 'rs_up', delta: '\n\n' },
      { type: 'reasoning-delta', id: 'rs_up', delta: 'B' },
      { type: 'reasoning-end', id: 'rs_up', encryptedContent: 'gAAAA==', summary: ['A', 'B'] },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'completed' }, usage },
    ]);
    expect(ofType(events, 'response.output_item.done')[0]?.item).toEqual({
      id: 'rs_up',
      type: 'reasoning',
      summary: [
        { type: 'summary_text', text: 'A' },
        { type: 'summary_text', text: 'B' },
      ],
      encrypted_content: 'gAAAA==',
    });
  });

  it('ends a length-cut response with response.incomplete and its reason', () => {
    const events = run([
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Once upon a' },
      { type: 'finish', finishReason: { unified: 'length', raw: 'max_tokens' }, usage },
    ]);
    const [incomplete] = ofType(events, 'response.incomplete');
    expect(incomplete?.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    // The open text part and message are closed before the terminal event.
    expect(names(events).slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.incomplete',
    ]);
  });

  it('renders an error part as response.failed with the code a client acts on, then stops', () => {
    const encoder = createResponsesStreamEncoder(context);
    encoder.encode({ type: 'text-start', id: 't' });
    const events = encoder.encode({
      type: 'error',
      error: {
        code: 'upstream_rate_limited',
        status: 429,
        type: 'rate_limit_error',
        message: 'Slow down.',
        retryAfter: 3,
      },
    });
    expect(events.at(-1)).toEqual({
      event: 'response.failed',
      data: expect.objectContaining({
        type: 'response.failed',
        response: expect.objectContaining({
          status: 'failed',
          error: { code: 'rate_limit_exceeded', message: 'Slow down. Please try again in 3s.' },
        }),
      }),
    });
    expect((events.at(-1)?.data as EventData).error).toBeUndefined();
    expect(encoder.encode({ type: 'text-delta', id: 't', delta: 'late' })).toEqual([]);
    expect(encoder.end()).toEqual([]);
  });

  it('fails the response when the stream ends without a finish', () => {
    const events = run([{ type: 'tool-input-start', id: 'call_1', toolName: 'shell' }]);
    expect(names(events).slice(-3)).toEqual([
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.failed',
    ]);
  });

  it('opens the response even when the first part is not response-start', () => {
    const events = run([{ type: 'text-start', id: 't' }], false);
    expect(names(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
  });
});
