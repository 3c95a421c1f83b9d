import { ApiError, renderErrorBody } from '../../canonical/generation-error.ts';
import { assertNever, type StreamPart } from '../../canonical/stream-part.ts';
import { jsonStringTemplate } from '../../shared/json-string-template.ts';
import type { SurfaceEncodeContext, SurfaceEvent, SurfaceStreamEncoder } from '../surface-codec.ts';
import type { ChatStreamEncoderOptions } from './chat-stream-encoder-options.ts';
import { renderChatFinishReason, type ChatFinishReason } from './render-chat-finish-reason.ts';
import { renderChatUsage } from './render-chat-usage.ts';

type ChatDelta = Record<string, unknown>;

/**
 * Canonical stream parts → `chat.completion.chunk` events (no SSE event name). The first chunk
 * carries `role: "assistant"`; the first delta of each tool call carries `index`, `id`, `type`,
 * `function.name` and empty arguments, later ones only `index` and argument fragments
 * (docs/clients.md, chat-style clients). Usage follows the finish chunk in a `choices: []` chunk
 * only when the client asked for it; `[DONE]` closes the stream. After an error event nothing
 * follows.
 */
export function createChatStreamEncoder(
  context: SurfaceEncodeContext,
  options: ChatStreamEncoderOptions = {},
): SurfaceStreamEncoder {
  const includeUsage = options.includeUsage === true;
  const toolIndexes = new Map<string, number>();
  let started = false;
  let finished = false;
  let failed = false;

  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): SurfaceEvent => ({
    data: {
      id: context.responseId,
      object: 'chat.completion.chunk',
      created: context.createdAt,
      model: context.model,
      choices,
      // OpenAI: with include_usage every other chunk carries `usage: null`.
      ...(includeUsage ? { usage: null } : {}),
      ...extra,
    },
  });
  const deltaChunk = (delta: ChatDelta, finishReason: ChatFinishReason | null = null) =>
    chunk([{ index: 0, delta, logprobs: null, finish_reason: finishReason }]);
  // Most chunks of an answer are one of these two; each differs from the last only in its text.
  const textJson = jsonStringTemplate((text) => deltaChunk({ content: text }).data);
  const reasoningJson = jsonStringTemplate((text) => deltaChunk({ reasoning_content: text }).data);
  const written = (event: SurfaceEvent, json: string): SurfaceEvent => {
    event.json = json;
    return event;
  };

  /** Prefixes the role chunk before the first content, whatever part comes first. */
  const withStart = (events: SurfaceEvent[]): SurfaceEvent[] => {
    if (started) return events;
    started = true;
    return [deltaChunk({ role: 'assistant', content: '' }), ...events];
  };

  const encodePart = (part: StreamPart): SurfaceEvent[] => {
    switch (part.type) {
      case 'response-start':
        return withStart([]);
      case 'text-delta':
        return part.delta === ''
          ? []
          : withStart([written(deltaChunk({ content: part.delta }), textJson(part.delta))]);
      case 'reasoning-delta':
        return part.delta === ''
          ? []
          : withStart([
              written(deltaChunk({ reasoning_content: part.delta }), reasoningJson(part.delta)),
            ]);
      case 'tool-input-start': {
        const index = toolIndexes.size;
        toolIndexes.set(part.id, index);
        // The part id of a tool input is the tool call id (docs/architecture.md).
        const call = {
          index,
          id: part.id,
          type: 'function',
          function: { name: part.toolName, arguments: '' },
        };
        return withStart([deltaChunk({ tool_calls: [call] })]);
      }
      case 'tool-input-delta': {
        const index = toolIndexes.get(part.id);
        if (index === undefined || part.delta === '') return [];
        return [deltaChunk({ tool_calls: [{ index, function: { arguments: part.delta } }] })];
      }
      case 'finish': {
        finished = true;
        const events = [deltaChunk({}, renderChatFinishReason(part.finishReason))];
        if (includeUsage) events.push(chunk([], { usage: renderChatUsage(part.usage) }));
        return withStart(events);
      }
      case 'error':
        failed = true;
        return [{ data: renderErrorBody(part.error, 'A') }];
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
      case 'tool-input-end':
        return [];
      default:
        return assertNever(part);
    }
  };

  return {
    encode(part) {
      return failed ? [] : encodePart(part);
    },
    end() {
      if (failed) return [];
      if (!finished) {
        // A stream that stops without a finish must not look complete to the client.
        failed = true;
        const error = new ApiError(
          'upstream_error',
          'The upstream stream ended before the generation finished.',
        );
        return [{ data: renderErrorBody(error.toGenerationError(), 'A') }];
      }
      return [{ data: '[DONE]' }];
    },
  };
}
