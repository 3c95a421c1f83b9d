import { describe, expect, it } from 'vitest';
import { mapOpenAIResponsesFinishReason } from './map-openai-responses-finish-reason.ts';

describe('mapOpenAIResponsesFinishReason', () => {
  it.each([
    [
      { status: 'completed', hasFunctionCall: false },
      { unified: 'stop', raw: 'completed' },
    ],
    [
      { status: 'completed', hasFunctionCall: true },
      { unified: 'tool-calls', raw: 'completed' },
    ],
    [
      { status: 'incomplete', incompleteReason: 'max_output_tokens', hasFunctionCall: true },
      { unified: 'length', raw: 'max_output_tokens' },
    ],
    [
      { status: 'incomplete', incompleteReason: 'content_filter', hasFunctionCall: false },
      { unified: 'content-filter', raw: 'content_filter' },
    ],
    [
      { status: 'incomplete', hasFunctionCall: false },
      { unified: 'other', raw: 'incomplete' },
    ],
    [
      { status: 'failed', hasFunctionCall: false },
      { unified: 'error', raw: 'failed' },
    ],
    [
      { status: 'cancelled', hasFunctionCall: false },
      { unified: 'other', raw: 'cancelled' },
    ],
  ])('maps %j', (ending, expected) => {
    expect(mapOpenAIResponsesFinishReason(ending)).toEqual(expected);
  });
});
