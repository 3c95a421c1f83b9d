import { errorCatalogue, type ErrorCode } from './error-catalogue.ts';

/** A failure as data: what an error stream part or an HTTP error response carries. */
export interface GenerationError {
  code: ErrorCode;
  status: number;
  type: string;
  message: string;
  /** Seconds, integer ≥ 1, for 429 and 503 (docs/api.md). */
  retryAfter?: number;
  /** Structured detail, e.g. the translation issues behind an `unrepresentable_field`. */
  details?: unknown;
  /** Further response headers for the client (a 429's rate-limit standing, docs/decisions/0149). */
  headers?: Readonly<Record<string, string>>;
}

/** An error with a catalogue code, thrown by use cases and rendered by the HTTP layer. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly retryAfter: number | undefined;
  readonly details: unknown;
  readonly headers: Readonly<Record<string, string>> | undefined;
  /**
   * For the operator's log only, never rendered to the client: which upstream failed and why
   * (provider, path, upstream status, cause). Never a credential.
   */
  readonly diagnosis: Readonly<Record<string, string | number>> | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    options: {
      retryAfter?: number;
      details?: unknown;
      status?: number;
      diagnosis?: Record<string, string | number>;
      headers?: Record<string, string>;
    } = {},
  ) {
    const entry = errorCatalogue[code];
    super(message ?? entry.message);
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? entry.status;
    this.type = entry.type;
    this.retryAfter =
      options.retryAfter === undefined ? undefined : Math.max(1, Math.ceil(options.retryAfter));
    this.details = options.details;
    this.headers = options.headers;
    this.diagnosis = options.diagnosis;
  }

  toGenerationError(): GenerationError {
    return {
      code: this.code,
      status: this.status,
      type: this.type,
      message: this.message,
      ...(this.retryAfter !== undefined ? { retryAfter: this.retryAfter } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
      ...(this.headers !== undefined ? { headers: this.headers } : {}),
    };
  }
}

export type ErrorShape = 'A' | 'B';

/** Renders an error body in the shape of the route family (docs/api.md). */
export function renderErrorBody(error: GenerationError, shape: ErrorShape): unknown {
  if (shape === 'B') {
    return {
      type: 'error',
      error: {
        type: error.type,
        message: error.message,
        ...(error.details !== undefined ? { details: error.details } : {}),
      },
    };
  }
  // OpenAI-style clients read the offending field from `param` next to `code`.
  const param = (error.details as { param?: unknown } | undefined)?.param;
  return {
    error: {
      type: error.type,
      message: error.message,
      code: error.code,
      ...(typeof param === 'string' ? { param } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
    },
  };
}
