import { parseUntrustedJson } from '../../shared/parse-json.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

/** The `error` object of a Google error body (`{error: {code, message, status, details}}`). */
export function readGoogleErrorObject(body: unknown): Record<string, unknown> {
  return isJsonObject(body) && isJsonObject(body.error) ? body.error : {};
}

/** `google.rpc.RetryInfo` inside an error's `details` (Google's API error model, AIP-193). */
const retryInfoType = 'type.googleapis.com/google.rpc.RetryInfo';
/** A `google.protobuf.Duration` in JSON: decimal seconds with an `s` suffix ("12s", "1.5s"). */
const durationPattern = /^(\d+(?:\.\d+)?)s$/;

/**
 * The wait a Google error body asks for (`details[].retryDelay` of a RetryInfo), in
 * milliseconds, or undefined when it names none. Gemini and Vertex send their wait only there,
 * never in a `retry-after` header.
 */
export function readGoogleRetryDelayMs(body: unknown): number | undefined {
  const details = readGoogleErrorObject(body).details;
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
 * The headers of an error answer with a Google RetryInfo wait as `retry-after` (whole seconds,
 * at least 1) when the answer carried no such header, so the one status mapping
 * (map-upstream-failure.ts) and the router's cooldown read it like any other upstream's wait.
 * Any other answer's headers come back as they are.
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
