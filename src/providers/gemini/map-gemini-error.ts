import { errorCatalogue, type ErrorCode } from '../../canonical/error-catalogue.ts';
import type { GenerationError } from '../../canonical/generation-error.ts';
import { parseUntrustedJson } from '../../shared/parse-json.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

/** `google.rpc.RetryInfo` inside an error's `details` (Google's API error model, AIP-193). */
const retryInfoType = 'type.googleapis.com/google.rpc.RetryInfo';
/** A `google.protobuf.Duration` in JSON: decimal seconds with an `s` suffix ("12s", "1.5s"). */
const durationPattern = /^(\d+(?:\.\d+)?)s$/;

/** Google's canonical error codes that have a catalogue code of their own. */
const codeByStatus: Record<string, ErrorCode> = {
  RESOURCE_EXHAUSTED: 'upstream_rate_limited',
  UNAVAILABLE: 'not_ready',
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
};

function readErrorObject(body: unknown): Record<string, unknown> {
  return isJsonObject(body) && isJsonObject(body.error) ? body.error : {};
}

/**
 * The wait a Google error body asks for (`details[].retryDelay` of a RetryInfo), in
 * milliseconds, or undefined when it names none. Gemini and Vertex send their wait only there,
 * never in a `retry-after` header.
 */
export function readGoogleRetryDelayMs(body: unknown): number | undefined {
  const details = readErrorObject(body).details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isJsonObject(detail) || detail['@type'] !== retryInfoType) continue;
    const match =
      typeof detail.retryDelay === 'string' ? durationPattern.exec(detail.retryDelay) : null;
    if (match !== null) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/**
 * The headers of a Google error answer with its RetryInfo wait as `retry-after` (whole seconds,
 * at least 1) when the answer carried no such header, so the one status mapping
 * (src/providers/shared/map-upstream-failure.ts) and the router's cooldown read it like any
 * other upstream's.
 */
export function withGoogleRetryAfter(
  headers: Record<string, string | string[] | undefined>,
  bodyText: string,
): Record<string, string | string[] | undefined> {
  if (headers['retry-after'] !== undefined || headers['retry-after-ms'] !== undefined) {
    return headers;
  }
  let body: unknown;
  try {
    body = parseUntrustedJson(bodyText);
  } catch {
    return headers;
  }
  const delayMs = readGoogleRetryDelayMs(body);
  if (delayMs === undefined) return headers;
  return { ...headers, 'retry-after': String(Math.max(1, Math.ceil(delayMs / 1000))) };
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
 * A Google error body (`{error: {code, message, status, details}}`) that arrived inside a stream,
 * as data. A refused request keeps the upstream's message; the gateway's own limits and
 * failures become upstream errors without it.
 */
export function mapGeminiStreamError(body: unknown): GenerationError {
  const error = readErrorObject(body);
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
