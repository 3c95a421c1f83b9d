import { describe, expect, it } from 'vitest';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import { createOpenAIToolNames, toOpenAIToolName } from './openai-tool-names.ts';

const callWith = (...names: string[]): GenerationCall => ({
  model: 'm',
  messages: [],
  tools: names.map((name) => ({ type: 'function', name, inputSchema: { type: 'object' } })),
  stream: false,
});

describe('OpenAI chat tool names', () => {
  it('keeps valid names unchanged', () => {
    expect(toOpenAIToolName('get_weather-v2')).toBe('get_weather-v2');
    expect(toOpenAIToolName('a'.repeat(64))).toBe('a'.repeat(64));
  });

  it.each(['a'.repeat(65), 'files.read', 'mcp__server__tööl', 'with space', ''])(
    'shortens %j to a valid, deterministic name that maps back',
    (name) => {
      const upstream = toOpenAIToolName(name);
      expect(upstream).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(toOpenAIToolName(name)).toBe(upstream);
      const names = createOpenAIToolNames(callWith(name, 'other'));
      expect(names.fromUpstream(names.toUpstream(name))).toBe(name);
    },
  );

  it('keeps names that share a long prefix distinct', () => {
    const prefix = 'x'.repeat(70);
    expect(toOpenAIToolName(`${prefix}_a`)).not.toBe(toOpenAIToolName(`${prefix}_b`));
  });

  it('keeps a sanitised name distinct from a valid name it resembles', () => {
    const names = createOpenAIToolNames(callWith('files.read', 'files_read'));
    expect(names.collisions).toEqual([]);
    expect(names.fromUpstream('files_read')).toBe('files_read');
    expect(names.fromUpstream(toOpenAIToolName('files.read'))).toBe('files.read');
  });

  it('maps names from the call history back even when the tool is no longer offered', () => {
    const call: GenerationCall = {
      ...callWith(),
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'old.tool', input: '{}' }],
        },
      ],
    };
    const names = createOpenAIToolNames(call);
    expect(names.fromUpstream(toOpenAIToolName('old.tool'))).toBe('old.tool');
    expect(names.fromUpstream('unknown_name')).toBe('unknown_name');
  });
});
