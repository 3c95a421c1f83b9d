import { describe, expect, it } from 'vitest';
import type { CanonicalMessage, GenerationCall } from '../../canonical/generation-call.ts';
import { readGeminiJsonFixture } from './__fixtures__/read-gemini-fixture.ts';
import { decodeGeminiResult } from './decode-gemini-result.ts';
import { encodeGeminiRequest } from './encode-gemini-request.ts';

const options = {
  upstreamModel: 'gemini-2.5-pro',
  promptCache: 'auto',
  defaultMaxOutputTokens: 4096,
} as const;

function call(overrides: Partial<GenerationCall>): GenerationCall {
  return {
    model: 'switchyard/gemini',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    stream: false,
    ...overrides,
  };
}

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a place',
  inputSchema: {
    type: 'object',
    properties: { location: { type: 'string' }, unit: { const: 'c' } },
    required: ['location'],
  },
};

describe('encodeGeminiRequest', () => {
  it('encodes the conversation, tools and generation settings as a generateContent body', () => {
    const encoded = encodeGeminiRequest(
      call({
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?', cache: {} },
              {
                type: 'image',
                source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K' },
              },
            ],
          },
        ],
        tools: [weatherTool],
        toolChoice: { type: 'tool', toolName: 'get_weather' },
        maxOutputTokens: 512,
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        stopSequences: ['END'],
        reasoning: { type: 'budget', budgetTokens: 1024 },
        responseFormat: { type: 'json', schema: { type: 'object' }, name: 'answer', strict: true },
      }),
      options,
    );
    expect(encoded.issues).toEqual([]);
    expect(encoded.value).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'What is this?' },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0K' } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather for a place',
              parametersJsonSchema: {
                type: 'object',
                properties: { location: { type: 'string' }, unit: { enum: ['c'] } },
                required: ['location'],
              },
            },
          ],
        },
      ],
      toolConfig: {
        functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
      },
      generationConfig: {
        maxOutputTokens: 512,
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        stopSequences: ['END'],
        responseMimeType: 'application/json',
        responseJsonSchema: { type: 'object' },
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
    });
  });

  it('sends a decoded answer back with every signature on the part it came with', () => {
    const body = readGeminiJsonFixture('generate-content-thinking-tool.json') as {
      candidates: Array<{ content: { parts: unknown[] } }>;
    };
    const answer = decodeGeminiResult(body, call({}));
    const calls = answer.content.filter((part) => part.type === 'tool-call');
    const messages: CanonicalMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
      { role: 'assistant', content: answer.content },
      {
        role: 'user',
        content: [
          { type: 'tool-result', toolCallId: calls[0]!.toolCallId, content: '18°C' },
          { type: 'tool-result', toolCallId: calls[1]!.toolCallId, content: 'boom', isError: true },
        ],
      },
    ];
    const encoded = encodeGeminiRequest(call({ messages }), options);
    expect(encoded.issues).toEqual([]);
    const contents = (encoded.value as { contents: unknown[] }).contents;
    expect(contents[1]).toEqual({ role: 'model', parts: body.candidates[0]!.content.parts });
    expect(contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: '18°C' } } },
        { functionResponse: { name: 'get_time', response: { error: 'boom' } } },
      ],
    });
  });

  it('keeps a trailing signature as an empty text part and merges same-role messages', () => {
    const encoded = encodeGeminiRequest(
      call({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'a' }] },
          { role: 'user', content: [{ type: 'text', text: 'b' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'done' },
              { type: 'reasoning', text: '', signature: 'sig==', provider: 'google' },
            ],
          },
        ],
      }),
      options,
    );
    expect((encoded.value as { contents: unknown }).contents).toEqual([
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'model', parts: [{ text: 'done' }, { text: '', thoughtSignature: 'sig==' }] },
    ]);
  });

  it('leaves out unsigned reasoning and other families’ reasoning of finished turns', () => {
    const encoded = encodeGeminiRequest(
      call({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'first' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'hmm', signature: 'anthropic-sig', provider: 'anthropic' },
              { type: 'reasoning', text: 'plain thoughts' },
              { type: 'text', text: 'answer' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'second' }] },
        ],
      }),
      options,
    );
    expect(encoded.issues).toEqual([]);
    expect((encoded.value as { contents: unknown[] }).contents[1]).toEqual({
      role: 'model',
      parts: [{ text: 'answer' }],
    });
  });

  it('reports what Gemini cannot carry, by canonical path', () => {
    const encoded = encodeGeminiRequest(
      call({
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } }],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: '', encryptedContent: 'enc', provider: 'openai' },
              { type: 'tool-call', toolCallId: 't1', toolName: 'get_weather', input: '[1]' },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool-result', toolCallId: 'unknown', content: 'x' }],
          },
          { role: 'system', content: [{ type: 'text', text: 'late' }] },
        ],
        tools: [
          {
            type: 'function',
            name: 'lookup',
            inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '^a' } } },
          },
        ],
        parallelToolCalls: false,
        stopSequences: ['1', '2', '3', '4', '5', '6'],
        reasoning: { type: 'effort', effort: 'max' },
        user: 'user-1',
        responseFormat: { type: 'json', schema: { type: 'object', not: { required: ['x'] } } },
      }),
      options,
    );
    expect(encoded.issues.map((issue) => issue.path)).toEqual([
      'messages[0].content[0]',
      'messages[1].content[0]',
      'messages[1].content[1].input',
      'messages[2].content[0]',
      'messages[3]',
      'tools[0]',
      'parallelToolCalls',
      'user',
      'stopSequences',
      'responseFormat',
      'reasoning.effort',
    ]);
    expect(encoded.issues[5]!.reason).toContain('properties.q.pattern');
    expect(encoded.issues[5]!.reason).toContain('"lookup"');
  });

  it('maps tool choices and reasoning settings', () => {
    const tools = [weatherTool];
    const config = (overrides: Partial<GenerationCall>) => {
      const value = encodeGeminiRequest(call({ tools, ...overrides }), options).value;
      return [
        value.toolConfig,
        (value.generationConfig as Record<string, unknown> | undefined)?.thinkingConfig,
      ];
    };
    expect(config({ toolChoice: { type: 'auto' } })[0]).toEqual({
      functionCallingConfig: { mode: 'AUTO' },
    });
    expect(config({ toolChoice: { type: 'none' } })[0]).toEqual({
      functionCallingConfig: { mode: 'NONE' },
    });
    expect(config({ toolChoice: { type: 'required' } })[0]).toEqual({
      functionCallingConfig: { mode: 'ANY' },
    });
    expect(config({ reasoning: { type: 'disabled' } })[1]).toEqual({ thinkingBudget: 0 });
    expect(config({ reasoning: { type: 'effort' } })[1]).toEqual({ includeThoughts: true });
    expect(config({ reasoning: { type: 'effort', effort: 'low' } })[1]).toEqual({
      thinkingLevel: 'low',
      includeThoughts: true,
    });
  });
});
