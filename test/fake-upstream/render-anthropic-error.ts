import type { ErrorDetails } from './fake-dialect-renderer.ts';

/** Status → `error.type`, per Anthropic's "Errors" page (HTTP errors). */
const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const defaultMessages: Record<string, string> = {
  invalid_request_error: 'Invalid request.',
  authentication_error: 'invalid x-api-key',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'Not found.',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit.',
  api_error: 'Internal server error',
  overloaded_error: 'Overloaded',
};

export function anthropicErrorType(status: number): string {
  return errorTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Error shape B (docs/api.md): `{type:"error", error:{type, message}}`. */
export function renderAnthropicErrorBody(status: number, details: ErrorDetails): unknown {
  const type = details.type ?? anthropicErrorType(status);
  return {
    type: 'error',
    error: { type, message: details.message ?? defaultMessages[type] ?? 'Error' },
  };
}
