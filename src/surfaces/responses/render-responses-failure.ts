import type { GenerationError } from '../../canonical/generation-error.ts';
import type { ResponsesError } from '../../wire/responses/responses-object-schema.ts';

/**
 * The `error` of a failed response object. Codes follow the upstream dialect where a client acts
 * on them: Codex stops retrying on `insufficient_quota` and reads the delay of a
 * `rate_limit_exceeded` from "try again in Ns" in the message (codex-rs sse/responses.rs).
 */
export function renderResponsesFailure(error: GenerationError): ResponsesError {
  const retry = error.retryAfter === undefined ? '' : ` Please try again in ${error.retryAfter}s.`;
  return { code: responsesErrorCode(error), message: error.message + retry };
}

function responsesErrorCode(error: GenerationError): string {
  if (error.code === 'rate_limited' || error.code === 'upstream_rate_limited') {
    return 'rate_limit_exceeded';
  }
  if (error.code === 'insufficient_credits') return 'insufficient_quota';
  if (error.status >= 400 && error.status < 500) return 'invalid_prompt';
  return 'server_error';
}
