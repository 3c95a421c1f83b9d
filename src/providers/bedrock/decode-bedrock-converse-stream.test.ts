import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import {
  encodeBedrockException,
  encodeConverseEvent,
  readBedrockJsonFixture,
  readInPieces,
} from './__fixtures__/read-bedrock-fixture.ts';
import { createBedrockConverseStreamDecoder } from './decode-bedrock-converse-stream.ts';
import { readBedrockEventBatches } from './read-bedrock-event-stream.ts';

const call: GenerationCall = { model: 'm', messages: [], tools: [], stream: true };

interface RecordedEvent {
  eventType: string;
  payload: unknown;
}

async function decodeFrames(frames: Buffer[]): Promise<StreamPart[]> {
  const decoder = createBedrockConverseStreamDecoder(call);
  const parts: StreamPart[] = [];
  for await (const batch of readBedrockEventBatches(readInPieces(Buffer.concat(frames), 13))) {
    for (const event of batch) parts.push(...decoder.push(event));
  }
  return [...parts, ...decoder.end()];
}

const recorded = () =>
  readBedrockJsonFixture<RecordedEvent[]>('converse-stream-reasoning-tool-use.json').map((event) =>
    encodeConverseEvent(event.eventType, event.payload),
  );

describe('createBedrockConverseStreamDecoder', () => {
  it('decodes reasoning, text and tool input, finishing with the metadata usage', async () => {
    const parts = await decodeFrames(recorded());
    expect(parts).toEqual([
      { type: 'response-start' },
      { type: 'reasoning-start', id: '0' },
      { type: 'reasoning-delta', id: '0', delta: 'Seattle weather: ' },
      { type: 'reasoning-delta', id: '0', delta: 'call the tool.' },
      { type: 'reasoning-end', id: '0', signature: 'EqoBCkgIARABGAIiQL2bFh3Jx' },
      { type: 'text-start', id: '1' },
      { type: 'text-delta', id: '1', delta: 'Let me ' },
      { type: 'text-delta', id: '1', delta: 'look that up.' },
      { type: 'text-end', id: '1' },
      { type: 'tool-input-start', id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', toolName: 'get_weather' },
      { type: 'tool-input-delta', id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', delta: '{"city": "Sea' },
      { type: 'tool-input-delta', id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', delta: 'ttle"}' },
      { type: 'tool-input-end', id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q' },
      {
        type: 'finish',
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage: {
          inputTokens: {
            total: 1948,
            noCache: 412,
            cacheRead: 1536,
            cacheWrite5m: 0,
            cacheWrite1h: 0,
          },
          outputTokens: { total: 87, reasoning: 0 },
        },
      },
    ]);
  });

  it('ends with a rate-limit error when Bedrock throttles mid-stream', async () => {
    const frames = recorded().slice(0, 3);
    frames.push(encodeBedrockException('throttlingException', 'Too many tokens, please wait.'));
    const parts = await decodeFrames(frames);
    expect(parts.at(-1)).toMatchObject({
      type: 'error',
      error: { code: 'upstream_rate_limited', status: 429 },
    });
    expect(JSON.stringify(parts.at(-1))).toContain('throttlingException: Too many tokens');
    expect(parts.filter((part) => part.type === 'error')).toHaveLength(1);
  });

  it('reports a stream that ends before its usage', async () => {
    const parts = await decodeFrames(recorded().slice(0, -1));
    expect(parts.at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error' } });
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});
