import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { Usage } from '../../canonical/usage.ts';
import type { UpstreamEvent } from '../provider-codec.ts';
import { mapOpenAIChatFinishReason } from './map-openai-chat-finish-reason.ts';
import { mapOpenAIChatUsage } from './map-openai-chat-usage.ts';
import { isRecord, parseOpenAIChatJson } from './parse-openai-chat-json.ts';

export interface ChatUsageTapObservation {
  /** The event is the usage-only chunk (`choices: []`), which a client that did not ask drops. */
  usageChunk: boolean;
}

export interface ChatUsageTap {
  /**
   * `parsed` is the event's data already parsed by the caller, when it has it (the relay parses
   * every event): the tap then reads it rather than scanning and parsing the text again.
   */
  observe(event: UpstreamEvent, parsed?: unknown): ChatUsageTapObservation;
  usage(): Usage | undefined;
  finishReason(): FinishReason | undefined;
}

/*
 * Inside a JSON string every `"` is escaped, so these unescaped key patterns only match real
 * keys; chunks without them (almost all: text deltas) are never parsed.
 */
const usageKey = /"usage"\s*:\s*\{/;
const finishKey = /"finish_reason"\s*:\s*"/;

const usageChunk: ChatUsageTapObservation = Object.freeze({ usageChunk: true });
const otherChunk: ChatUsageTapObservation = Object.freeze({ usageChunk: false });

/** Reads usage and the finish reason off a relayed chat stream without parsing every chunk. */
export function createChatUsageTap(): ChatUsageTap {
  let usage: Usage | undefined;
  let finishReason: FinishReason | undefined;
  return {
    observe(event, parsed) {
      let chunk = parsed;
      if (chunk === undefined) {
        const data = event.data;
        if (!usageKey.test(data) && (finishReason !== undefined || !finishKey.test(data))) {
          return otherChunk;
        }
        const read = parseOpenAIChatJson(data);
        if (!read.ok) return otherChunk;
        chunk = read.value;
      }
      if (!isRecord(chunk)) return otherChunk;
      const reported = chunk['usage'];
      const hasUsage = isRecord(reported);
      if (hasUsage) usage = mapOpenAIChatUsage(reported) ?? usage;
      const choices = Array.isArray(chunk['choices']) ? (chunk['choices'] as unknown[]) : [];
      if (finishReason === undefined) {
        for (const choice of choices) {
          if (finishReason === undefined && isRecord(choice)) {
            const raw = choice['finish_reason'];
            if (typeof raw === 'string') finishReason = mapOpenAIChatFinishReason(raw);
          }
        }
      }
      return hasUsage && choices.length === 0 ? usageChunk : otherChunk;
    },
    usage: () => usage,
    finishReason: () => finishReason,
  };
}
