import type { CodecResult, GenerationCall } from '../../canonical/generation-call.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { convertToAnthropicRequest } from './convert-to-anthropic-request.ts';

export const anthropicCountTokensPath = '/v1/messages/count_tokens';

/** Fields the count-tokens endpoint accepts; the API refuses others such as `max_tokens`. */
const countedFields = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking'];

/**
 * The call as a POST /v1/messages/count_tokens body (docs/decisions/0031). Output settings do not
 * change the prompt size and are left out; no cache marker is added, since counting caches nothing.
 */
export function convertToAnthropicCountTokensRequest(
  call: GenerationCall,
  options: Pick<ProviderRequestOptions, 'upstreamModel'>,
): CodecResult<Record<string, unknown>> {
  const { value, issues } = convertToAnthropicRequest(call, {
    upstreamModel: options.upstreamModel,
    promptCache: 'off',
    defaultMaxOutputTokens: 1,
  });
  const body: Record<string, unknown> = {};
  for (const field of countedFields) {
    if (value[field] !== undefined) body[field] = value[field];
  }
  return { value: body, issues };
}

/** The count in a count_tokens answer (`{"input_tokens": n}`). */
export function readAnthropicTokenCount(answer: unknown): number | undefined {
  const count = isJsonObject(answer) ? answer.input_tokens : undefined;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
}
