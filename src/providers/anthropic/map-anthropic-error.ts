import { errorCatalogue, type ErrorCode } from '../../canonical/error-catalogue.ts';
import type { GenerationError } from '../../canonical/generation-error.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

/** Upstream error types with a catalogue code of their own; all others are upstream errors. */
const codeByUpstreamType: Record<string, ErrorCode> = {
  rate_limit_error: 'upstream_rate_limited',
  overloaded_error: 'not_ready',
};

function generationError(code: ErrorCode, message: string): GenerationError {
  const entry = errorCatalogue[code];
  return { code, status: entry.status, type: entry.type, message };
}

/** An Anthropic `error` event body (`{type:"error", error:{type, message}}`) as data. */
export function mapAnthropicStreamError(body: unknown): GenerationError {
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : {};
  const upstreamType = typeof error.type === 'string' ? error.type : 'unknown_error';
  const code = codeByUpstreamType[upstreamType] ?? 'upstream_error';
  const detail = typeof error.message === 'string' ? `: ${error.message}` : '';
  return generationError(code, `${errorCatalogue[code].message} (${upstreamType}${detail})`);
}

/** A stream the gateway could not read to its end (502, docs/api.md). */
export function anthropicStreamFailure(reason: string): GenerationError {
  return generationError('upstream_error', `${errorCatalogue.upstream_error.message} (${reason})`);
}
