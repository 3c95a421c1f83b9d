import { errorCatalogue, type ErrorCode } from '../../canonical/error-catalogue.ts';
import type { GenerationError } from '../../canonical/generation-error.ts';
import { isJsonRecord, readString } from './read-openai-responses-json.ts';

/** The request itself was refused: the client can act on the upstream's message. */
const requestCodes = new Set([
  'invalid_prompt',
  'context_length_exceeded',
  'invalid_image',
  'invalid_request_error',
]);

/** OpenAI writes the delay of a rate limit into the message: "Please try again in 1.5s". */
const retryIn = /try again in\s*(\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i;

function retryAfterSeconds(message: string | undefined): number | undefined {
  const match = message === undefined ? null : retryIn.exec(message);
  if (match === null) return undefined;
  const value = Number(match[1]);
  const seconds = match[2]?.toLowerCase() === 'ms' ? value / 1000 : value;
  return Math.max(1, Math.ceil(seconds));
}

function generationError(code: ErrorCode, message: string, retryAfter?: number): GenerationError {
  const entry = errorCatalogue[code];
  return {
    code,
    status: entry.status,
    type: entry.type,
    message,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

/**
 * The error of a `response.failed` response or of an `error` event (`{code, message}`) as data.
 * A refused request keeps the upstream's message; the gateway's own account limits (quota,
 * server errors) become upstream errors without it.
 */
export function mapOpenAIResponsesError(error: unknown): GenerationError {
  const fields = isJsonRecord(error) ? error : {};
  const code = readString(fields.code) ?? readString(fields.type) ?? 'unknown_error';
  const message = readString(fields.message);
  if (code === 'rate_limit_exceeded') {
    return generationError(
      'upstream_rate_limited',
      errorCatalogue.upstream_rate_limited.message,
      retryAfterSeconds(message),
    );
  }
  if (requestCodes.has(code)) {
    return generationError('invalid_request', `Upstream rejected the request: ${message ?? code}`);
  }
  return generationError('upstream_error', `${errorCatalogue.upstream_error.message} (${code})`);
}

/** A stream the gateway could not read to its end (502, docs/api.md). */
export function openAIResponsesStreamFailure(reason: string): GenerationError {
  return generationError('upstream_error', `${errorCatalogue.upstream_error.message} (${reason})`);
}
