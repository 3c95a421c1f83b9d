import type { ErrorDetails } from './fake-dialect-renderer.ts';

interface OpenAiErrorDefaults {
  type: string;
  code: string | null;
  message: string;
}

/** Status → the error object OpenAI sends for Chat Completions and Responses alike. */
function defaultsFor(status: number): OpenAiErrorDefaults {
  switch (status) {
    case 401:
      return {
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        message: 'Incorrect API key provided.',
      };
    case 404:
      return {
        type: 'invalid_request_error',
        code: 'model_not_found',
        message: 'The model does not exist or you do not have access to it.',
      };
    case 429:
      return {
        type: 'requests',
        code: 'rate_limit_exceeded',
        message: 'Rate limit reached for requests. Please try again in 1s.',
      };
    default:
      return status >= 500
        ? {
            type: 'server_error',
            code: null,
            message: 'The server had an error while processing your request. Sorry about that!',
          }
        : { type: 'invalid_request_error', code: null, message: 'Invalid request.' };
  }
}

/** Error shape A (docs/api.md): `{error:{message, type, param, code}}`. */
export function renderOpenAiErrorBody(status: number, details: ErrorDetails): unknown {
  const defaults = defaultsFor(status);
  return {
    error: {
      message: details.message ?? defaults.message,
      type: details.type ?? defaults.type,
      param: null,
      code: defaults.code,
    },
  };
}
