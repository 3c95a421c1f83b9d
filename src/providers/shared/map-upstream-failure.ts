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

/** Which upstream answered, for the operator's log (`ApiError.diagnosis`). */
export interface UpstreamOrigin {
  /** The provider's id in the configuration. */
  provider: string;
  baseUrl: string;
  /** The path the gateway asked for, relative to `baseUrl`. */
  path: string;
  /** The provider's `apiKeyEnv` when it names a variable that is unset: no credential was sent. */
  missingKeyEnv?: string | undefined;
}

/**
 * The origin of a call to `provider`, naming its key variable when that is unset: `keyEnv`, the
 * variable the call's key came from, or else the provider's first.
 */
export function upstreamOrigin(
  providerId: string,
  provider: { baseUrl: string; apiKeyEnv?: string | Array<string | { env: string }> | undefined },
  path: string,
  key: string | undefined,
  keyEnv?: string,
): UpstreamOrigin {
  const first = Array.isArray(provider.apiKeyEnv) ? provider.apiKeyEnv[0] : provider.apiKeyEnv;
  const firstEnv = typeof first === 'object' ? first.env : first;
  return {
    provider: providerId,
    baseUrl: provider.baseUrl,
    path,
    missingKeyEnv: key === undefined ? (keyEnv ?? firstEnv) : undefined,
  };
}

/** The URL path the gateway called: the base URL's own path, then the request's. */
export function upstreamUrlPath(baseUrl: string, path: string): string {
  return `${new URL(baseUrl).pathname.replace(/\/+$/, '')}${path}`;
}

/**
 * Maps an upstream non-2xx answer onto the catalogue, in one place. With its
 * `origin`, the error carries what the operator needs to fix it (docs/decisions/0111).
 */
export function mapUpstreamStatus(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  bodyText: string,
  now: number,
  origin?: UpstreamOrigin,
): UpstreamFailure {
  const failure = classifyUpstreamStatus(status, headers, bodyText, now);
  if (origin === undefined) return failure;
  const { error } = failure;
  const diagnosis = {
    provider: origin.provider,
    upstreamStatus: status,
    upstreamPath: upstreamUrlPath(origin.baseUrl, origin.path),
    cause: upstreamCause(status, bodyText, origin),
  };
  return {
    ...failure,
    error: new ApiError(error.code, error.message, {
      ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
      status: error.status,
      diagnosis,
    }),
  };
}

/** One line for the operator: the likely fix first, then what the upstream said. */
function upstreamCause(status: number, bodyText: string, origin: UpstreamOrigin): string {
  const said = readUpstreamMessage(bodyText);
  const upstreamSaid = said === undefined ? '' : ` The upstream said: ${said.slice(0, 300)}`;
  // What an upstream says about a refused key may quote part of it: never logged.
  if ((status === 401 || status === 403) && origin.missingKeyEnv !== undefined)
    return `No credential was sent: the environment variable ${origin.missingKeyEnv} is unset.`;
  if (status === 403 && said !== undefined && /have access to the model/i.test(said))
    return `The upstream account has no access to this deployment's model.${upstreamSaid}`;
  if (status === 401 || status === 403)
    return "The upstream refused the provider's credential: check the key its apiKeyEnv names.";
  if (status === 404 || status === 405)
    return `The upstream has no such path: check the provider's baseUrl (the gateway appends ${origin.path} to it).${upstreamSaid}`;
  return said === undefined ? `HTTP ${status}.` : said.slice(0, 300);
}

function classifyUpstreamStatus(
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
  if (status === 404 || status === 405) {
    // The gateway built the URL from its own configuration (a provider baseUrl ending in /v1
    // calls /v1/v1/...): the client can fix nothing, and another deployment may be right.
    return {
      error: new ApiError(
        'upstream_error',
        `The upstream has no such endpoint (HTTP ${status}); the gateway's provider configuration needs fixing.`,
      ),
      retryable: true,
    };
  }
  // Bedrock's ModelErrorException: the model failed, not the request.
  if (status >= 400 && status < 500 && status !== 424) {
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
