import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { convertToBedrockConverseRequest } from './convert-to-bedrock-converse-request.ts';

const options: ProviderRequestOptions = {
  upstreamModel: 'amazon.nova-pro-v1:0',
  promptCache: 'off',
  defaultMaxOutputTokens: 4096,
};

function call(overrides: Partial<GenerationCall> = {}): GenerationCall {
  return {
    model: 'public-model',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    ...overrides,
  };
}

describe('convertToBedrockConverseRequest', () => {
  it('sends messages and inference settings, never the model or the stream flag', () => {
    const { value, issues } = convertToBedrockConverseRequest(
      call({ stream: true, temperature: 0.2, topP: 0.9, stopSequences: ['END'] }),
      options,
    );
    expect(issues).toEqual([]);
    expect(value).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      inferenceConfig: { maxTokens: 4096, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
    });
  });

  it('writes a conversation with system, images, reasoning, tools and cache points', () => {
    const { value, issues } = convertToBedrockConverseRequest(
      call({
        maxOutputTokens: 300,
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.', cache: { ttl: '1h' } }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather?' },
              {
                type: 'image',
                source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K' },
              },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Use the tool.', signature: 'sig-1' },
              {
                type: 'tool-call',
                toolCallId: 'tooluse_1',
                toolName: 'get_weather',
                input: '{"city":"Oslo"}',
              },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'tooluse_1',
                content: 'unknown city',
                isError: true,
                cache: {},
              },
            ],
          },
        ],
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            description: 'Weather of a city',
            inputSchema: { properties: { city: { type: 'string' } } },
            strict: true,
            cache: {},
          },
        ],
        toolChoice: { type: 'required' },
      }),
      options,
    );
    expect(issues).toEqual([]);
    expect(value).toEqual({
      system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default', ttl: '1h' } }],
      messages: [
        {
          role: 'user',
          content: [
            { text: 'Weather?' },
            { image: { format: 'png', source: { bytes: 'iVBORw0K' } } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Use the tool.', signature: 'sig-1' } } },
            { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Oslo' } } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              toolResult: {
                toolUseId: 'tooluse_1',
                content: [{ text: 'unknown city' }],
                status: 'error',
              },
            },
            { cachePoint: { type: 'default' } },
          ],
        },
      ],
      inferenceConfig: { maxTokens: 300 },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              description: 'Weather of a city',
              inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
              strict: true,
            },
          },
          { cachePoint: { type: 'default' } },
        ],
        toolChoice: { any: {} },
      },
    });
  });

  it('names every canonical field Converse cannot carry', () => {
    const { issues } = convertToBedrockConverseRequest(
      call({
        topK: 40,
        reasoning: { type: 'budget', budgetTokens: 2048 },
        responseFormat: { type: 'json', schema: { type: 'object' } },
        parallelToolCalls: false,
        tools: [{ type: 'function', name: 'f', inputSchema: { type: 'object' } }],
        user: 'not allowed: <script>',
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }],
          },
          {
            role: 'assistant',
            content: [{ type: 'reasoning', text: '', encryptedContent: 'e', provider: 'openai' }],
          },
          { role: 'system', content: [{ type: 'text', text: 'late' }] },
        ],
      }),
      options,
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'messages[0].content[0]',
      'messages[1].content[0]',
      'messages[2]',
      'topK',
      'parallelToolCalls',
      'reasoning',
      'responseFormat',
      'user',
    ]);
  });

  it('leaves out signed reasoning of finished turns and tools under choice "none"', () => {
    const { value, issues } = convertToBedrockConverseRequest(
      call({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'a' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 't', signature: 's', provider: 'anthropic' },
              { type: 'text', text: 'b' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'c' }] },
        ],
        tools: [{ type: 'function', name: 'f', inputSchema: { type: 'object' } }],
        toolChoice: { type: 'none' },
        user: 'user-42',
      }),
      options,
    );
    expect(issues).toEqual([]);
    expect(value.messages).toEqual([
      { role: 'user', content: [{ text: 'a' }] },
      { role: 'assistant', content: [{ text: 'b' }] },
      { role: 'user', content: [{ text: 'c' }] },
    ]);
    expect(value.toolConfig).toBeUndefined();
    expect(value.requestMetadata).toEqual({ user: 'user-42' });
  });
});
