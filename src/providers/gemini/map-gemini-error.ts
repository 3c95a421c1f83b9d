import { errorCatalogue, type ErrorCode } from '../../canonical/error-catalogue.ts';
import type { GenerationError } from '../../canonical/generation-error.ts';
import { readGoogleErrorObject, readGoogleRetryDelayMs } from '../shared/google-retry-info.ts';

/** Google's canonical error codes that have a catalogue code of their own. */
const codeByStatus: Record<string, ErrorCode> = {
  RESOURCE_EXHAUSTED: 'upstream_rate_limited',
  UNAVAILABLE: 'not_ready',
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
};

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
 * A Google error body (`{error: {code, message, status, details}}`) that arrived inside a stream,
 * as data. A refused request keeps the upstream's message; the gateway's own limits and
 * failures become upstream errors without it.
 */
export function mapGeminiStreamError(body: unknown): GenerationError {
  const error = readGoogleErrorObject(body);
  const status = typeof error.status === 'string' ? error.status : 'UNKNOWN';
  const code = codeByStatus[status] ?? 'upstream_error';
  const message = typeof error.message === 'string' ? error.message : undefined;
  if (code === 'invalid_request') {
    return generationError(code, `Upstream rejected the request: ${message ?? status}`);
  }
  const delayMs = code === 'upstream_rate_limited' ? readGoogleRetryDelayMs(body) : undefined;
  return generationError(
    code,
    `${errorCatalogue[code].message} (${status})`,
    delayMs === undefined ? undefined : Math.max(1, Math.ceil(delayMs / 1000)),
  );
}

/** A stream the gateway could not read to its end (502, docs/api.md). */
export function geminiStreamFailure(reason: string): GenerationError {
  return generationError('upstream_error', `${errorCatalogue.upstream_error.message} (${reason})`);
}
