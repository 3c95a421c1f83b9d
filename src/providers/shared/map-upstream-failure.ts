import { ApiError } from '../../canonical/generation-error.ts';
import { parseUntrustedJson } from '../../shared/parse-json.ts';

/** Seconds from a `retry-after` header (delta-seconds or HTTP date), integer ≥ 1, if present. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number,
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.max(1, Math.ceil(Number(text)));
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(1, Math.ceil((date - now) / 1000));
}

/** The upstream's own error message from either error shape, when it gave one. */
export function readUpstreamMessage(bodyText: string): string | undefined {
  try {
    const body = parseUntrustedJson(bodyText) as {
      error?: { message?: unknown } | string;
      message?: unknown;
    };
    if (typeof body.error === 'object' && typeof body.error?.message === 'string')
      return body.error.message;
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // Not JSON: fall through to the generic message.
  }
  return undefined;
}

export interface UpstreamFailure {
  error: ApiError;
  /** Worth trying the model's next deployment (docs/architecture.md: 5xx, timeouts, 429). */
  retryable: boolean;
}

/** Maps an upstream non-2xx answer onto the catalogue, in one place. */
export function mapUpstreamStatus(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  bodyText: string,
  now: number,
): UpstreamFailure {
  const upstreamMessage = readUpstreamMessage(bodyText);
  const retryAfter = parseRetryAfter(headers['retry-after'], now);
  if (status === 429) {
    return {
      error: new ApiError(
        'upstream_rate_limited',
        upstreamMessage ? `Upstream rate limit: ${upstreamMessage}` : undefined,
        {
          ...(retryAfter !== undefined ? { retryAfter } : {}),
        },
      ),
      retryable: true,
    };
  }
  if (status === 413)
    return { error: new ApiError('request_too_large', upstreamMessage), retryable: false };
  if (status === 401 || status === 403) {
    // The gateway's own upstream credential failed: not the client's fault, and not its business.
    return {
      error: new ApiError(
        'upstream_error',
        `The upstream refused the gateway's credentials (HTTP ${status}).`,
      ),
      retryable: true,
    };
  }
  if (status >= 400 && status < 500) {
    return {
      error: new ApiError(
        'invalid_request',
        upstreamMessage
          ? `Upstream rejected the request: ${upstreamMessage}`
          : `Upstream rejected the request (HTTP ${status}).`,
      ),
      retryable: false,
    };
  }
  if (status === 503 || status === 529) {
    return {
      error: new ApiError(
        'not_ready',
        upstreamMessage ? `Upstream overloaded: ${upstreamMessage}` : undefined,
        {
          ...(retryAfter !== undefined ? { retryAfter } : {}),
        },
      ),
      retryable: true,
    };
  }
  return {
    error: new ApiError(
      'upstream_error',
      `The upstream failed (HTTP ${status})${upstreamMessage ? `: ${upstreamMessage}` : '.'}`,
    ),
    retryable: true,
  };
}
