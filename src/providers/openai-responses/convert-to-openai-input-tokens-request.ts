import type { CodecResult, GenerationCall } from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { convertToOpenAIResponsesRequest } from './convert-to-openai-responses-request.ts';

/**
 * The token counting path of an OpenAI responses upstream (used for count_tokens,
 * docs/decisions/0031).
 */
export const openAIResponsesInputTokensPath = '/v1/responses/input_tokens';

/** The fields the counting endpoint reads: what the model would see, not how it would answer. */
const countedFields = [
  'model',
  'instructions',
  'input',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning',
  'text',
];

/** Issues about output settings do not concern a count; the counting body does not carry them. */
const outputOnlyPaths = new Set(['topK', 'stopSequences', 'maxOutputTokens']);

export function convertToOpenAIInputTokensRequest(
  call: GenerationCall,
  options: Pick<ProviderRequestOptions, 'upstreamModel'>,
): CodecResult<Record<string, unknown>> {
  const { value, issues } = convertToOpenAIResponsesRequest(call, options);
  const body: Record<string, unknown> = {};
  for (const field of countedFields) if (value[field] !== undefined) body[field] = value[field];
  return { value: body, issues: issues.filter((issue) => !outputOnlyPaths.has(issue.path)) };
}

/** `input_tokens` of a counting answer (`{object:"response.input_tokens", input_tokens}`). */
export function readOpenAIInputTokens(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const count = (body as { input_tokens?: unknown }).input_tokens;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
}
