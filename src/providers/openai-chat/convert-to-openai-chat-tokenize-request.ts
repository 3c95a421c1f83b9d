import type { CodecResult, GenerationCall } from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { encodeOpenAIChatRequest } from './encode-openai-chat-request.ts';

/** Issues about sampling do not concern a count; the tokenize body does not carry them. */
const outputOnlyPaths = new Set(['topK']);

/**
 * The body of a chat server's tokenize route (vLLM `POST /tokenize`, its `TokenizeChatRequest`):
 * the messages and tools the model would see, rendered through the server's own chat template
 * with the reply's generation prompt, as a generation call renders them.
 */
export function convertToOpenAIChatTokenizeRequest(
  call: GenerationCall,
  options: Pick<ProviderRequestOptions, 'upstreamModel'>,
): CodecResult<Record<string, unknown>> {
  const { value, issues } = encodeOpenAIChatRequest(call, {
    upstreamModel: options.upstreamModel,
    promptCache: 'off',
    defaultMaxOutputTokens: 1,
  });
  const body: Record<string, unknown> = {
    model: value.model,
    messages: value.messages,
    add_generation_prompt: true,
  };
  if (value.tools !== undefined) body.tools = value.tools;
  return { value: body, issues: issues.filter((issue) => !outputOnlyPaths.has(issue.path)) };
}

/** The token count of a tokenize answer (vLLM: `{count, max_model_len, tokens}`). */
export function readOpenAIChatTokenizeCount(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { count, tokens } = body as { count?: unknown; tokens?: unknown };
  if (typeof count === 'number' && Number.isInteger(count) && count >= 0) return count;
  return Array.isArray(tokens) ? tokens.length : undefined;
}
