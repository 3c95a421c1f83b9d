import { describe, expect, it } from 'vitest';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.ts';

describe('mapAnthropicStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool-calls'],
    ['pause_turn', 'pause'],
    ['refusal', 'refusal'],
    ['something_new', 'other'],
  ])('maps %s to %s and keeps the raw word', (raw, unified) => {
    expect(mapAnthropicStopReason(raw)).toEqual({ unified, raw });
  });

  it('maps a missing reason to other', () => {
    expect(mapAnthropicStopReason(null)).toEqual({ unified: 'other', raw: undefined });
  });
});
