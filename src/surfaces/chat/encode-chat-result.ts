import type { GenerationResult } from '../../canonical/generation-result.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import type { SurfaceEncodeContext } from '../surface-codec.ts';
import { renderChatFinishReason, type ChatFinishReason } from './render-chat-finish-reason.ts';
import { renderChatUsage, type ChatUsageBody } from './render-chat-usage.ts';

export interface ChatToolCallBody {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      tool_calls?: ChatToolCallBody[];
      reasoning_content?: string;
    };
    logprobs: null;
    finish_reason: ChatFinishReason;
  }>;
  usage: ChatUsageBody;
}

/**
 * A canonical result → a `chat.completion` body. Text parts are concatenated (chat has one text
 * per message), reasoning text becomes `reasoning_content`; signatures and encrypted reasoning
 * have no place in this dialect (docs/clients.md) and stay out of the answer.
 */
export function encodeChatResult(
  result: GenerationResult,
  context: SurfaceEncodeContext,
): ChatCompletionBody {
  let text: string | null = null;
  let reasoning = '';
  const toolCalls: ChatToolCallBody[] = [];
  for (const part of result.content) {
    switch (part.type) {
      case 'text':
        text = (text ?? '') + part.text;
        break;
      case 'reasoning':
        reasoning += part.text;
        break;
      case 'tool-call':
        toolCalls.push({
          id: part.toolCallId,
          type: 'function',
          function: { name: part.toolName, arguments: part.input },
        });
        break;
      default:
        assertNever(part);
    }
  }
  const message: ChatCompletionBody['choices'][number]['message'] = {
    role: 'assistant',
    content: text,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning !== '') message.reasoning_content = reasoning;
  return {
    id: context.responseId,
    object: 'chat.completion',
    created: context.createdAt,
    model: context.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: renderChatFinishReason(result.finishReason),
      },
    ],
    usage: renderChatUsage(result.usage),
  };
}
