import { anthropicDeltaSlot } from '../providers/anthropic/anthropic-delta-slot.ts';
import { createAnthropicUsageTap } from '../providers/anthropic/create-anthropic-usage-tap.ts';
import { prepareAnthropicPassthrough } from '../providers/anthropic/prepare-anthropic-passthrough.ts';
import { readAnthropicResultUsage } from '../providers/anthropic/decode-anthropic-result.ts';
import { openAIChatDeltaSlot } from '../providers/openai-chat/openai-chat-delta-slot.ts';
import { createChatUsageTap } from '../providers/openai-chat/openai-chat-usage-tap.ts';
import { prepareChatPassthrough } from '../providers/openai-chat/prepare-openai-chat-passthrough.ts';
import { readChatResultUsage } from '../providers/openai-chat/read-openai-chat-result-usage.ts';
import {
  createResponsesUsageTap,
  readResponsesResultUsage,
} from '../providers/openai-responses/create-responses-usage-tap.ts';
import { prepareResponsesPassthrough } from '../providers/openai-responses/prepare-responses-passthrough.ts';
import type { SurfaceName } from '../surfaces/surface-codec.ts';
import {
  countAnthropicRelayedText,
  countChatRelayedText,
  countResponsesRelayedText,
} from './count-relayed-text.ts';
import type { PassthroughAdapter } from './passthrough-adapter.ts';

const responseObjectEvents = new Set([
  'response.created',
  'response.queued',
  'response.in_progress',
  'response.completed',
  'response.incomplete',
  'response.failed',
]);

const usageOnlyChunk = Object.freeze({ usageOnly: true });
const otherChunk = Object.freeze({ usageOnly: false });

const anthropic: PassthroughAdapter = {
  prepare: (body, options) => ({ body: prepareAnthropicPassthrough(body, options) }),
  createUsageTap() {
    const tap = createAnthropicUsageTap();
    return {
      observe: (event, parsed) => {
        tap.observe(event, parsed);
        return undefined;
      },
      usage: () => tap.usage(),
      finishReason: () => tap.finishReason(),
      completed: () => tap.completed() && tap.error() === undefined,
      failed: () => tap.error() !== undefined,
    };
  },
  readResultUsage: (body) => readAnthropicResultUsage(body),
  carriesModel: (event) => event.event === 'message_start',
  countRelayedText: countAnthropicRelayedText,
  deltaSlot: anthropicDeltaSlot,
};

const chat: PassthroughAdapter = {
  prepare(body, options) {
    const prepared = prepareChatPassthrough(body, options);
    return {
      body: prepared.body,
      dropUsageChunk: body.stream === true && !prepared.clientAskedForUsage,
    };
  },
  createUsageTap() {
    const tap = createChatUsageTap();
    return {
      observe: (event, parsed) =>
        tap.observe(event, parsed).usageChunk ? usageOnlyChunk : otherChunk,
      usage: () => tap.usage(),
      finishReason: () => tap.finishReason(),
      // Chat has no end event besides [DONE]; a finish reason means the answer is whole.
      completed: () => tap.finishReason() !== undefined,
      // A chat error arrives as a data chunk with an `error` object and no finish reason.
      failed: () => false,
    };
  },
  readResultUsage(body) {
    const usage = readChatResultUsage(body);
    return usage === undefined ? undefined : { usage };
  },
  // Every chunk names the model.
  carriesModel: (event) => event.data !== '[DONE]',
  countRelayedText: countChatRelayedText,
  deltaSlot: openAIChatDeltaSlot,
};

const responses: PassthroughAdapter = {
  prepare: (body, options) => ({ body: prepareResponsesPassthrough(body, options) }),
  createUsageTap() {
    const tap = createResponsesUsageTap();
    return {
      observe: (event, parsed) => {
        tap.observe(event, parsed);
        return undefined;
      },
      usage: () => tap.usage,
      finishReason: () => tap.finishReason,
      completed: () => tap.completed && tap.error === undefined,
      failed: () => tap.error !== undefined,
    };
  },
  readResultUsage(body) {
    const usage = readResponsesResultUsage(body);
    return usage === undefined ? undefined : { usage };
  },
  // The events that carry the whole response object; deltas and items name no model.
  carriesModel: (event) => event.event !== undefined && responseObjectEvents.has(event.event),
  countRelayedText: countResponsesRelayedText,
  // Every event numbers itself (`sequence_number`): no two deltas share a shape.
};

/** The same-dialect fast path of each surface, over its own provider's helpers. */
export const dialectPassthroughAdapters: Record<SurfaceName, PassthroughAdapter> = {
  messages: anthropic,
  chat,
  responses,
};
