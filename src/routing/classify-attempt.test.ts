import { describe, expect, it } from 'vitest';
import { classifyUpstreamStatus, isRetryableClass } from './classify-attempt.ts';

const anthropicError = (type: string, message: string) =>
  JSON.stringify({ type: 'error', error: { type, message } });
const openaiError = (code: string, message: string) =>
  JSON.stringify({ error: { message, type: 'invalid_request_error', code } });

describe('classifyUpstreamStatus', () => {
  it.each([
    [
      429,
      anthropicError('rate_limit_error', 'Number of requests has exceeded your rate limit'),
      'rate_limited',
    ],
    [429, openaiError('rate_limit_exceeded', 'Rate limit reached for requests'), 'rate_limited'],
    [429, openaiError('insufficient_quota', 'You exceeded your current quota'), 'quota'],
    [402, '', 'quota'],
    [
      400,
      anthropicError(
        'invalid_request_error',
        'Your credit balance is too low to access the Anthropic API.',
      ),
      'quota',
    ],
    [401, anthropicError('authentication_error', 'invalid x-api-key'), 'refused'],
    [403, anthropicError('permission_error', 'Your API key does not have permission'), 'refused'],
    [500, anthropicError('api_error', 'Internal server error'), 'server'],
    [502, '<html>Bad Gateway</html>', 'server'],
    [503, '', 'server'],
    [529, anthropicError('overloaded_error', 'Overloaded'), 'server'],
    [408, '', 'server'],
    [404, openaiError('model_not_found', 'The model does not exist'), 'server'],
    [405, '', 'server'],
    [424, JSON.stringify({ message: 'Received error from the model.' }), 'server'],
    [
      403,
      JSON.stringify({
        message: "You don't have access to the model with the specified model ID.",
      }),
      'server',
    ],
    [
      403,
      JSON.stringify({ message: 'The security token included in the request is invalid.' }),
      'refused',
    ],
    [
      429,
      JSON.stringify({ message: 'Too many requests, please wait before trying again.' }),
      'rate_limited',
    ],
    [400, JSON.stringify({ message: 'Input is too long for requested model.' }), 'context'],
    [
      400,
      anthropicError('invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum'),
      'context',
    ],
    [
      400,
      openaiError(
        'context_length_exceeded',
        "This model's maximum context length is 128000 tokens.",
      ),
      'context',
    ],
    [400, openaiError('', 'Your input exceeds the context window of this model.'), 'context'],
    [413, anthropicError('request_too_large', 'Request exceeds the maximum size'), 'client'],
    [413, openaiError('context_length_exceeded', 'too many tokens'), 'context'],
    [400, anthropicError('invalid_request_error', 'messages: roles must alternate'), 'client'],
    [422, openaiError('', 'Unprocessable'), 'client'],
    [409, '', 'client'],
  ] as const)('%i %s → %s', (status, body, expected) => {
    expect(classifyUpstreamStatus(status, body)).toBe(expected);
  });
});

describe('isRetryableClass', () => {
  it('retries what another target might not share, never the request’s own fault', () => {
    for (const failure of [
      'rate_limited',
      'server',
      'timeout',
      'connection',
      'refused',
      'quota',
    ] as const)
      expect(isRetryableClass(failure)).toBe(true);
    expect(isRetryableClass('client')).toBe(false);
    expect(isRetryableClass('context')).toBe(false);
  });
});
