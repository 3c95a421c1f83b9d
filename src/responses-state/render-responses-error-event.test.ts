import { describe, expect, it } from 'vitest';
import { ApiError } from '../canonical/generation-error.ts';
import { renderResponsesErrorEvent } from './render-responses-error-event.ts';
import { previousResponseNotFound } from './responses-state-errors.ts';

describe('renderResponsesErrorEvent', () => {
  it('carries the status, and the code and param the error names', () => {
    const event = renderResponsesErrorEvent(previousResponseNotFound('resp_x').toGenerationError());
    expect(event).toMatchObject({
      type: 'error',
      status: 400,
      error: {
        type: 'invalid_request_error',
        code: 'previous_response_not_found',
        param: 'previous_response_id',
      },
    });
    expect(event).not.toHaveProperty('headers');
  });

  it('falls back to the catalogue code and passes a known retry delay as a header', () => {
    const event = renderResponsesErrorEvent(
      new ApiError('rate_limited', 'Slow down.', { retryAfter: 7 }).toGenerationError(),
    );
    expect(event).toEqual({
      type: 'error',
      status: 429,
      error: { type: 'rate_limit_error', code: 'rate_limited', message: 'Slow down.', param: null },
      headers: { 'retry-after': '7' },
    });
  });
});
