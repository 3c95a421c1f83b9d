import { describe, expect, it } from 'vitest';
import { createOpenAIToolNames, toOpenAIToolName } from '../shared/openai-tool-names.ts';

describe('toOpenAIToolName', () => {
  it('keeps valid names and shortens long or invalid ones deterministically', () => {
    expect(toOpenAIToolName('get_weather-2')).toBe('get_weather-2');
    const long = 'x'.repeat(65);
    expect(toOpenAIToolName(long)).toMatch(/^x{55}_[0-9a-f]{8}$/);
    expect(toOpenAIToolName('collab.spawn agent')).toMatch(/^collab_spawn_agent_[0-9a-f]{8}$/);
    expect(toOpenAIToolName('a.b')).not.toBe(toOpenAIToolName('a b'));
  });

  it('maps names of tools, tool choice and history calls back, and leaves unknown names alone', () => {
    const names = createOpenAIToolNames({
      model: 'm',
      stream: false,
      tools: [{ type: 'function', name: 'ns.tool', inputSchema: {} }],
      toolChoice: { type: 'tool', toolName: 'choice name' },
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'old.call', input: '{}' }],
        },
      ],
    });
    for (const name of ['ns.tool', 'choice name', 'old.call']) {
      expect(names.fromUpstream(names.toUpstream(name))).toBe(name);
    }
    expect(names.fromUpstream('never_seen')).toBe('never_seen');
    expect(names.collisions).toEqual([]);
  });
});
