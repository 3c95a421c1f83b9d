import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { GenerationError } from '../../canonical/generation-error.ts';
import type { Usage } from '../../canonical/usage.ts';
import { isJsonObject, parseJsonText } from '../../wire/messages/messages-json-text.ts';
import type { UpstreamEvent } from '../provider-codec.ts';
import { mapAnthropicStreamError } from './map-anthropic-error.ts';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.ts';
import {
  mapAnthropicUsage,
  mergeAnthropicUsage,
  type AnthropicUsageCounts,
} from './map-anthropic-usage.ts';

/**
 * What the fast path learns from a relayed stream without translating it. Shaped like the
 * generation layer's `UsageTap` (src/generation/passthrough-adapter.ts).
 */
export interface AnthropicUsageTap {
  /** `parsed`: the event's data when the caller parsed it already (the relay does). */
  observe(event: UpstreamEvent, parsed?: unknown): void;
  /** The usage reported so far (cumulative; exact once message_delta arrived), if any. */
  usage(): Usage | undefined;
  finishReason(): FinishReason | undefined;
  /** Whether message_stop was seen. */
  completed(): boolean;
  /** The upstream's `error` event, when it sent one. */
  error(): GenerationError | undefined;
}

const typeInData = /"type"\s*:\s*"([a-z_]+)"/;

/** The event kind: the SSE event name, or the data's `type` when a relay dropped the name. */
function eventKind(event: UpstreamEvent, parsed: unknown): string | undefined {
  if (event.event !== undefined && event.event !== '') return event.event;
  if (isJsonObject(parsed)) return typeof parsed.type === 'string' ? parsed.type : undefined;
  return typeInData.exec(event.data)?.[1];
}

/** The event's data as an object: the caller's parse when it made one, else parsed here. */
function dataOf(data: string, parsed: unknown): Record<string, unknown> {
  if (isJsonObject(parsed)) return parsed;
  const result = parseJsonText(data);
  return result.ok && isJsonObject(result.value) ? result.value : {};
}

/**
 * A cheap reader of relayed Anthropic events (the same-dialect fast path): only message_start,
 * message_delta and error are parsed; content events, the bulk of a stream, are not.
 */
export function createAnthropicUsageTap(): AnthropicUsageTap {
  let counts: AnthropicUsageCounts | undefined;
  let finishReason: FinishReason | undefined;
  let messageStopSeen = false;
  let error: GenerationError | undefined;

  return {
    observe(event, parsed) {
      switch (eventKind(event, parsed)) {
        case 'message_start': {
          const message = dataOf(event.data, parsed).message;
          counts = mergeAnthropicUsage(
            counts ?? {},
            isJsonObject(message) ? message.usage : undefined,
          );
          return;
        }
        case 'message_delta': {
          const data = dataOf(event.data, parsed);
          const delta = isJsonObject(data.delta) ? data.delta : {};
          if (delta.stop_reason !== undefined)
            finishReason = mapAnthropicStopReason(delta.stop_reason);
          counts = mergeAnthropicUsage(counts ?? {}, data.usage);
          return;
        }
        case 'message_stop':
          messageStopSeen = true;
          return;
        case 'error':
          error = mapAnthropicStreamError(dataOf(event.data, parsed));
          return;
        default:
          return;
      }
    },
    usage: () => (counts === undefined ? undefined : mapAnthropicUsage(counts)),
    finishReason: () => finishReason,
    completed: () => messageStopSeen,
    error: () => error,
  };
}
