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
  observe(event: UpstreamEvent): ChatUsageTapObservation;
  usage(): Usage | undefined;
  finishReason(): FinishReason | undefined;
}

/*
 * Inside a JSON string every `"` is escaped, so these unescaped key patterns only match real
 * keys; chunks without them (almost all: text deltas) are never parsed.
 */
const usageKey = /"usage"\s*:\s*\{/;
const finishKey = /"finish_reason"\s*:\s*"/;

/** Reads usage and the finish reason off a relayed chat stream without parsing every chunk. */
export function createChatUsageTap(): ChatUsageTap {
  let usage: Usage | undefined;
  let finishReason: FinishReason | undefined;
  return {
    observe(event) {
      const data = event.data;
      const hasUsage = usageKey.test(data);
      if (!hasUsage && (finishReason !== undefined || !finishKey.test(data))) {
        return { usageChunk: false };
      }
      const parsed = parseOpenAIChatJson(data);
      if (!parsed.ok || !isRecord(parsed.value)) return { usageChunk: false };
      const chunk = parsed.value;
      usage = mapOpenAIChatUsage(chunk['usage']) ?? usage;
      const choices = Array.isArray(chunk['choices']) ? (chunk['choices'] as unknown[]) : [];
      for (const choice of choices) {
        if (finishReason === undefined && isRecord(choice)) {
          const raw = choice['finish_reason'];
          if (typeof raw === 'string') finishReason = mapOpenAIChatFinishReason(raw);
        }
      }
      return { usageChunk: hasUsage && choices.length === 0 };
    },
    usage: () => usage,
    finishReason: () => finishReason,
  };
}
