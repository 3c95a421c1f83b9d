import type { AssistantContentPart, GenerationCall } from '../../canonical/generation-call.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import { emptyUsage } from '../../canonical/usage.ts';
import { mapOpenAIChatFinishReason } from './map-openai-chat-finish-reason.ts';
import { mapOpenAIChatUsage } from './map-openai-chat-usage.ts';
import { createOpenAIToolNames } from '../shared/openai-tool-names.ts';
import { isRecord } from './parse-openai-chat-json.ts';
import { readOpenAIChatReasoning } from './read-openai-chat-reasoning.ts';

/**
 * A non-streamed `chat.completion` → the canonical result. Lenient: unknown fields are ignored;
 * only a body without a readable first choice is an upstream error (502, docs/api.md).
 */
export function decodeOpenAIChatResult(body: unknown, call: GenerationCall): GenerationResult {
  const choices = isRecord(body) ? body['choices'] : undefined;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(body) || !isRecord(choice) || !isRecord(choice['message'])) {
    const upstreamError = isRecord(body) && isRecord(body['error']) ? body['error'] : undefined;
    const message =
      typeof upstreamError?.['message'] === 'string'
        ? `The upstream answered with an error: ${upstreamError['message']}`
        : undefined;
    throw new ApiError('upstream_error', message);
  }
  const message = choice['message'];
  const names = createOpenAIToolNames(call);
  const content: AssistantContentPart[] = [];
  const reasoning = readOpenAIChatReasoning(message);
  if (reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
  const text = readText(message['content']);
  if (text !== '') content.push({ type: 'text', text });
  // A refusal is the model's answer in words; the client must see it.
  if (typeof message['refusal'] === 'string' && message['refusal'] !== '') {
    content.push({ type: 'text', text: message['refusal'] });
  }
  const toolCalls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
  for (const toolCall of toolCalls as unknown[]) {
    if (!isRecord(toolCall) || !isRecord(toolCall['function'])) continue;
    const fn = toolCall['function'];
    content.push({
      type: 'tool-call',
      toolCallId: typeof toolCall['id'] === 'string' ? toolCall['id'] : '',
      toolName: names.fromUpstream(typeof fn['name'] === 'string' ? fn['name'] : ''),
      input: typeof fn['arguments'] === 'string' ? fn['arguments'] : '',
    });
  }
  const finishReason = mapOpenAIChatFinishReason(
    typeof choice['finish_reason'] === 'string' ? choice['finish_reason'] : undefined,
  );
  if (finishReason.unified === 'stop' && content.some((part) => part.type === 'tool-call')) {
    // Some OpenAI-compatible servers say `stop` after tool calls; the turn still awaits results.
    finishReason.unified = 'tool-calls';
  }
  const result: GenerationResult = {
    content,
    finishReason,
    usage: mapOpenAIChatUsage(body['usage']) ?? emptyUsage(),
  };
  if (typeof body['id'] === 'string') result.id = body['id'];
  if (typeof body['model'] === 'string') result.model = body['model'];
  return result;
}

/** Content is a string, or (some compatible servers) an array of text parts. */
function readText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as unknown[])
    .map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}
