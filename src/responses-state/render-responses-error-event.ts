import type { GenerationError } from '../canonical/generation-error.ts';

export interface ResponsesErrorEvent {
  type: 'error';
  status: number;
  error: { type: string; code: string; message: string; param: string | null; details?: unknown };
  headers?: Record<string, string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A failure before a response exists, as a WebSocket error frame (docs/clients.md: an error frame
 * carries a `status`; Codex reads `status`, `error` and a `headers` map, codex-rs
 * client_websockets tests). `code` and `param` come from the error's details where it names
 * them (OpenAI's own codes, e.g. `previous_response_not_found`), else the catalogue code.
 */
export function renderResponsesErrorEvent(error: GenerationError): ResponsesErrorEvent {
  const details = isRecord(error.details) ? error.details : {};
  return {
    type: 'error',
    status: error.status,
    error: {
      type: error.type,
      code: typeof details.code === 'string' ? details.code : error.code,
      message: error.message,
      param: typeof details.param === 'string' ? details.param : null,
      ...(error.details !== undefined ? { details: error.details } : {}),
    },
    ...(error.retryAfter !== undefined
      ? { headers: { 'retry-after': String(error.retryAfter) } }
      : {}),
  };
}
