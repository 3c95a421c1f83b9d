import type { FailureClass } from './target-health.ts';

/**
 * What an upstream's refusal says about the target that gave it (docs/routing.md): its key is
 * rate limited, refused or out of credit; the deployment is failing; the prompt is too long for
 * the model; or the request itself is at fault (no target would answer it differently).
 */
export function classifyUpstreamStatus(status: number, bodyText: string): FailureClass {
  if (status === 402) return 'quota';
  // Bedrock refuses a model the account was not granted with a 403 that says so: the
  // deployment's fault, not the key's, which may serve the provider's other models.
  if (status === 403 && /have access to the model/i.test(bodyText)) return 'server';
  if (status === 401 || status === 403) return 'refused';
  if (status === 429) return /insufficient_quota/.test(bodyText) ? 'quota' : 'rate_limited';
  // Bedrock answers 424 when the model itself failed (ModelErrorException).
  if (status === 408 || status === 424 || status >= 500 || status === 404 || status === 405)
    return 'server';
  if (status === 400 || status === 413) {
    // Anthropic's word for an organisation out of credit is a 400.
    if (/credit balance is too low/i.test(bodyText)) return 'quota';
    if (
      /context_length_exceeded|prompt is too long|maximum context length|exceeds the context window|input is too long/i.test(
        bodyText,
      )
    )
      return 'context';
  }
  return 'client';
}

/** Failures another target might not have: worth the next attempt. */
export function isRetryableClass(failure: FailureClass): boolean {
  return failure !== 'client' && failure !== 'context';
}
