import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { GenerationError } from '../../canonical/generation-error.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { UpstreamEvent } from '../provider-codec.ts';
import { decodeOpenAIResponsesUsage } from './decode-openai-responses-usage.ts';
import { mapOpenAIResponsesError } from './map-openai-responses-error.ts';
import { mapOpenAIResponsesFinishReason } from './map-openai-responses-finish-reason.ts';
import {
  isJsonRecord,
  parseOpenAIResponsesEventData,
  readRecords,
  readString,
} from './read-openai-responses-json.ts';

/** What the fast path learns from a relayed responses stream without translating it. */
export interface ResponsesUsageTap {
  /** `parsed`: the event's data when the caller parsed it already (the relay does). */
  observe(event: UpstreamEvent, parsed?: unknown): void;
  /** The usage of the terminal event; undefined until one arrived. */
  readonly usage: Usage | undefined;
  readonly finishReason: FinishReason | undefined;
  /** True once `response.completed` or `response.incomplete` arrived (Codex retries otherwise). */
  readonly completed: boolean;
  /** Set by `response.failed` or an `error` event. */
  readonly error: GenerationError | undefined;
}

const terminalTypes = ['response.completed', 'response.incomplete', 'response.failed', 'error'];

/** The event kind: the SSE event name, or the data's type when a relay dropped the name. */
function eventKind(event: UpstreamEvent, parsed: unknown): string | undefined {
  if (event.event !== undefined && event.event !== '') return event.event;
  if (isJsonRecord(parsed)) return readString(parsed.type);
  // Only terminal events are worth parsing; a delta that merely mentions one is parsed and dropped.
  return terminalTypes.some((type) => event.data.includes(`"${type}"`))
    ? readString(parseOpenAIResponsesEventData(event.data)?.type)
    : undefined;
}

/** The usage of a whole response object (non-streamed answer), if it has one. */
export function readResponsesResultUsage(body: unknown): Usage | undefined {
  return isJsonRecord(body) ? decodeOpenAIResponsesUsage(body.usage) : undefined;
}

/**
 * A cheap reader of relayed responses events (the same-dialect fast path): only the terminal events
 * are parsed, where the dialect reports usage once for the whole response; deltas are not.
 */
export function createResponsesUsageTap(): ResponsesUsageTap {
  let usage: Usage | undefined;
  let finishReason: FinishReason | undefined;
  let completed = false;
  let error: GenerationError | undefined;

  return {
    observe(event, parsed) {
      const kind = eventKind(event, parsed);
      if (kind === undefined || !terminalTypes.includes(kind)) return;
      const data = isJsonRecord(parsed)
        ? parsed
        : (parseOpenAIResponsesEventData(event.data) ?? {});
      if (kind === 'error') {
        error = mapOpenAIResponsesError(data);
        return;
      }
      const response = isJsonRecord(data.response) ? data.response : {};
      usage = decodeOpenAIResponsesUsage(response.usage) ?? usage;
      if (kind === 'response.failed') {
        error = mapOpenAIResponsesError(response.error);
        return;
      }
      completed = true;
      const incomplete = isJsonRecord(response.incomplete_details)
        ? response.incomplete_details
        : {};
      finishReason = mapOpenAIResponsesFinishReason({
        status: readString(response.status),
        incompleteReason: readString(incomplete.reason),
        hasFunctionCall: readRecords(response.output).some((item) => item.type === 'function_call'),
      });
    },
    get usage() {
      return usage;
    },
    get finishReason() {
      return finishReason;
    },
    get completed() {
      return completed;
    },
    get error() {
      return error;
    },
  };
}
