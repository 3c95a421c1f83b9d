import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../canonical/usage.ts';
import { readAnthropicJsonFixture } from './__fixtures__/read-anthropic-sse-fixture.ts';
import { decodeAnthropicResult, readAnthropicResultUsage } from './decode-anthropic-result.ts';

const call = { model: 'm', messages: [], tools: [], stream: false };

describe('decodeAnthropicResult', () => {
  const body = readAnthropicJsonFixture('message-thinking-tool.json') as {
    content: Array<{ signature?: string }>;
  };

  it('decodes thinking, redacted thinking, text and tool use in order', () => {
    const result = decodeAnthropicResult(body, call);
    expect(result.id).toBe('msg_01Pz6wQa2Ls9Kd4Fh7Jt3Xc8');
    expect(result.content).toEqual([
      {
        type: 'reasoning',
        text: 'Need the file contents before answering.',
        signature: body.content[0]?.signature,
        provider: 'anthropic',
      },
      {
        type: 'reasoning',
        text: '',
        redactedData: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw',
        provider: 'anthropic',
      },
      { type: 'text', text: 'Reading the file.' },
      {
        type: 'tool-call',
        toolCallId: 'toolu_01Vb7nM2kL9pQ4xZ6wR3tY8s',
        toolName: 'Read',
        input: '{"file_path":"/repo/src/main.ts","limit":200}',
      },
    ]);
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_use' });
  });

  it('normalises usage with cache reads and per-TTL cache writes', () => {
    expect(readAnthropicResultUsage(body)?.finishReason).toEqual({
      unified: 'tool-calls',
      raw: 'tool_use',
    });
    expect(readAnthropicResultUsage(body)?.usage).toEqual({
      inputTokens: {
        total: 7 + 40960 + 1200,
        noCache: 7,
        cacheRead: 40960,
        cacheWrite5m: 200,
        cacheWrite1h: 1000,
      },
      outputTokens: { total: 96, reasoning: 0 },
    });
  });

  it('counts all cache writes as five-minute writes when the split is absent', () => {
    const usage = readAnthropicResultUsage({
      usage: { input_tokens: 3, cache_creation_input_tokens: 50, output_tokens: 1 },
    });
    expect(usage?.usage.inputTokens).toEqual({
      total: 53,
      noCache: 3,
      cacheRead: 0,
      cacheWrite5m: 50,
      cacheWrite1h: 0,
    });
  });

  it('reports no usage for a body without it', () => {
    expect(readAnthropicResultUsage({ content: [] })).toBeUndefined();
  });

  it('reads a body with missing parts leniently', () => {
    expect(decodeAnthropicResult({ content: [{ type: 'text' }, null] }, call)).toEqual({
      content: [{ type: 'text', text: '' }],
      finishReason: { unified: 'other', raw: undefined },
      usage: emptyUsage(),
    });
  });
});
