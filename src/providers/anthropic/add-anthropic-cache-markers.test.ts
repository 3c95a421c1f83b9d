import { describe, expect, it } from 'vitest';
import {
  addAnthropicCacheMarkers,
  countAnthropicCacheBreakpoints,
} from './add-anthropic-cache-markers.ts';

const marker = { type: 'ephemeral' };

function body(messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'm', max_tokens: 10, messages, ...extra };
}

describe('addAnthropicCacheMarkers', () => {
  it('adds one five-minute marker on the last block of the last message', () => {
    const input = body([
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: 'b' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'c' },
          { type: 'text', text: 'd' },
        ],
      },
    ]);
    const output = addAnthropicCacheMarkers(input, 'auto');
    expect(output.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: 'b' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'c' },
          { type: 'text', text: 'd', cache_control: marker },
        ],
      },
    ]);
    expect(countAnthropicCacheBreakpoints(output)).toBe(1);
  });

  it('turns string content into a text block to carry the marker', () => {
    const output = addAnthropicCacheMarkers(body([{ role: 'user', content: 'hi' }]), 'auto');
    expect(output.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: marker }] },
    ]);
  });

  it('skips empty and whitespace-only text blocks and thinking blocks', () => {
    const output = addAnthropicCacheMarkers(
      body([
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 't', name: 'x', input: {} },
            { type: 'thinking', thinking: 'hm', signature: 's' },
            { type: 'text', text: '  \n' },
            { type: 'text', text: '' },
          ],
        },
      ]),
      'auto',
    );
    const content = (output.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]
      ?.content;
    expect(content?.map((block) => block.cache_control)).toEqual([
      marker,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('marks a tool_result block itself', () => {
    const output = addAnthropicCacheMarkers(
      body([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] }]),
      'auto',
    );
    expect(output.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok', cache_control: marker }],
      },
    ]);
  });

  it('falls back to the last system block when the last message has nothing cacheable', () => {
    const input = body([{ role: 'user', content: [{ type: 'text', text: ' ' }] }], {
      system: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'second' },
      ],
    });
    const output = addAnthropicCacheMarkers(input, 'auto');
    expect(output.system).toEqual([
      { type: 'text', text: 'first' },
      { type: 'text', text: 'second', cache_control: marker },
    ]);
    expect(output.messages).toBe(input.messages);
  });

  it('never places a five-minute system marker before a one-hour message marker', () => {
    const input = body(
      [
        {
          role: 'user',
          content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
        { role: 'user', content: [{ type: 'text', text: '' }] },
      ],
      { system: 'rules' },
    );
    expect(addAnthropicCacheMarkers(input, 'auto')).toBe(input);
  });

  it('keeps a client marker (one-hour TTL included) and adds none on an already marked block', () => {
    const clientMarker = { type: 'ephemeral', ttl: '1h' };
    const input = body([
      { role: 'user', content: [{ type: 'text', text: 'x', cache_control: clientMarker }] },
    ]);
    const output = addAnthropicCacheMarkers(input, 'auto');
    expect(output).toBe(input);
    expect(countAnthropicCacheBreakpoints(output)).toBe(1);
  });

  it('adds a marker at the end when earlier client markers leave room, without touching them', () => {
    const input = body(
      [
        {
          role: 'user',
          content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
        { role: 'user', content: [{ type: 'text', text: 'y' }] },
      ],
      { system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
    );
    const output = addAnthropicCacheMarkers(input, 'auto');
    expect(countAnthropicCacheBreakpoints(output)).toBe(3);
    expect(output.system).toBe(input.system);
    expect((output.messages as unknown[])[0]).toBe((input.messages as unknown[])[0]);
  });

  it('adds nothing when system, tools and messages already hold four breakpoints', () => {
    const cached = { cache_control: { type: 'ephemeral' } };
    const input = body(
      [
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't',
              content: [{ type: 'text', text: 'r', ...cached }],
            },
            { type: 'text', text: 'a', ...cached },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      {
        system: [{ type: 'text', text: 's', ...cached }],
        tools: [{ name: 'x', input_schema: { type: 'object' }, ...cached }],
      },
    );
    expect(countAnthropicCacheBreakpoints(input)).toBe(4);
    expect(addAnthropicCacheMarkers(input, 'auto')).toBe(input);
  });

  it('adds nothing with the header set to off', () => {
    const input = body([{ role: 'user', content: 'hi' }], { system: 's' });
    expect(addAnthropicCacheMarkers(input, 'off')).toEqual(
      body([{ role: 'user', content: 'hi' }], { system: 's' }),
    );
  });

  it('does not modify the body it was given', () => {
    const input = body([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    const snapshot = structuredClone(input);
    addAnthropicCacheMarkers(input, 'auto');
    expect(input).toEqual(snapshot);
  });
});
